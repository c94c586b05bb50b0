/**
 * Every live stdio server child, so that none outlives the runtime: a process 'exit' handler
 * (registered once, on the first spawn) kills them synchronously.
 */

const live = new Set<number>();
let installed = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

export function trackChild(pid: number): void {
  live.add(pid);
  if (!installed) {
    installed = true;
    process.once("exit", killAll);
  }
}

export function untrackChild(pid: number): void {
  live.delete(pid);
}

/** The pids currently tracked (for tests and diagnostics). */
export function trackedChildren(): number[] {
  return [...live];
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves true once `pid` is gone, false if it is still alive after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
