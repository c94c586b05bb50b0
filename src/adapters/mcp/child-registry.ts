import { trackedGroups } from "../shared/process-groups.js";

/**
 * Liveness helpers for stdio server children. The children themselves are tracked as process
 * groups (shared/process-groups.ts), so that none, nor anything it started, outlives the runtime.
 */

/** The group leaders of the stdio children currently tracked (for tests and diagnostics). */
export function trackedChildren(): number[] {
  return trackedGroups();
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
