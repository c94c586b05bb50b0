/**
 * Every child the runtime spawns (stdio MCP servers, CLI programs) leads its own process group
 * (`spawn(..., { detached: true })`), and is ended as a group: a server started through a wrapper
 * (`sh -c "node server.mjs"`, `npx`, `uvx`) has its real process one level down, and signalling
 * only the direct child leaves that grandchild running with ppid 1.
 *
 * The groups alive right now are kept here, so that a process 'exit' handler (registered once,
 * on the first tracked group) can SIGKILL them synchronously whatever way the runtime leaves.
 * POSIX only: on Windows a negative pid is not a group and the helpers fall back to the one pid.
 */

const live = new Set<number>();
let installed = false;
const groupsWork = process.platform !== "win32";

function send(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(groupsWork ? -pid : pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function killAll(): void {
  for (const pid of live) send(pid, "SIGKILL");
  live.clear();
}

/** Remember the group led by `pid` until `untrackGroup`; it is SIGKILLed if the runtime exits first. */
export function trackGroup(pid: number): void {
  live.add(pid);
  if (!installed) {
    installed = true;
    process.once("exit", killAll);
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

/** True while any process of the group is alive (a zombie leader not yet reaped counts). */
function groupAlive(pid: number): boolean {
  return send(pid, 0);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves true once the whole group is gone, false if some member is still there after `timeoutMs`. */
export async function waitForGroupExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * End a group: SIGTERM to all of it, then SIGKILL to whatever is left after `graceMs`, and wait
 * (bounded) until it is gone. Untracks it either way.
 */
export async function stopGroup(pid: number, graceMs: number): Promise<void> {
  try {
    if (!signalGroup(pid, "SIGTERM")) return;
    if (await waitForGroupExit(pid, graceMs)) return;
    signalGroup(pid, "SIGKILL");
    await waitForGroupExit(pid, 1_000);
  } finally {
    untrackGroup(pid);
  }
}
