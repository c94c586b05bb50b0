import { groupHasRunningMember } from "./running-groups.js";

/**
 * Every child the runtime spawns (stdio MCP servers, CLI programs) leads its own process group
 * (`spawn(..., { detached: true })`), and is ended as a group: a server started through a wrapper
 * (`sh -c "node server.mjs"`, `npx`, `uvx`) has its real process one level down, and signalling
 * only the direct child leaves that grandchild running with ppid 1.
 *
 * The groups alive right now are kept here, so that a process 'exit' handler (registered once,
 * on the first tracked group) can SIGKILL them synchronously whatever way the runtime leaves.
 * Once the runtime has begun to exit (`beginExit`), a group is stopped fast: its client may
 * SIGKILL the runtime soon after closing it (the SDK's StdioClientTransport does at 4 s, after a
 * SIGTERM at 2 s), and a group still being given its grace then would be left with ppid 1.
 * POSIX only: on Windows a negative pid is not a group and the helpers fall back to the one pid.
 */

const live = new Set<number>();
let installed = false;
let exiting = false;
const groupsWork = process.platform !== "win32";

function send(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(groupsWork ? -pid : pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Once the runtime is exiting, the most a group gets between SIGTERM and SIGKILL. */
export const EXITING_KILL_GRACE_MS = 1_000;

/** SIGKILL every tracked group now (the exit handler, and a second signal during a shutdown). */
export function killAllGroups(): void {
  for (const pid of live) send(pid, "SIGKILL");
  live.clear();
}

/**
 * The runtime has begun to exit: from now on a stdio server is sent SIGTERM with the end of its
 * stdin instead of after its grace (group-stdio-transport.ts), and `stopGroup` waits at most
 * EXITING_KILL_GRACE_MS before SIGKILL. Never undone: the process is on its way out.
 */
export function beginExit(): void {
  exiting = true;
}

/** True once `beginExit` was called. */
export function exitBegun(): boolean {
  return exiting;
}

/** Remember the group led by `pid` until `untrackGroup`; it is SIGKILLed if the runtime exits first. */
export function trackGroup(pid: number): void {
  live.add(pid);
  if (!installed) {
    installed = true;
    process.once("exit", killAllGroups);
  }
}

export function untrackGroup(pid: number): void {
  live.delete(pid);
}

/** The group leaders currently tracked (tests and diagnostics). */
export function trackedGroups(): number[] {
  return [...live];
}

/** Signal every process in the group `pid` leads; false when none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  return send(pid, signal);
}

/** True while any process of the group is left, zombies included (see waitForGroupExit). */
function groupAlive(pid: number): boolean {
  return send(pid, 0);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** After this long, a group still answering signals is looked up in /proc: it may hold only zombies. */
const ZOMBIES_AFTER_MS = 100;

/**
 * Resolves true once the whole group is gone (or holds only zombies: running-groups.ts), false if
 * some member is still running after `timeoutMs`.
 */
export async function waitForGroupExit(pid: number, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  while (groupAlive(pid)) {
    const now = Date.now();
    if ((now - started >= ZOMBIES_AFTER_MS || now >= deadline) && !groupHasRunningMember(pid, started)) return true;
    if (now >= deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * End a group: SIGTERM to all of it, then SIGKILL to whatever is left after `graceMs` (at most
 * EXITING_KILL_GRACE_MS once the runtime is exiting), and wait (bounded) until it is gone.
 * Untracks it either way.
 */
export async function stopGroup(pid: number, graceMs: number): Promise<void> {
  try {
    if (!signalGroup(pid, "SIGTERM")) return;
    if (await waitForGroupExit(pid, exiting ? Math.min(graceMs, EXITING_KILL_GRACE_MS) : graceMs)) return;
    signalGroup(pid, "SIGKILL");
    await waitForGroupExit(pid, 1_000);
  } finally {
    untrackGroup(pid);
  }
}
