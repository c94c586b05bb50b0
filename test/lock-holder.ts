import { spawn, type ChildProcess } from "node:child_process";
import { ROOT } from "./helpers.js";

/**
 * Another process holding an advisory lock (src/file-lock.ts) as a runtime does: proper-lockfile's
 * folder at `lockFile`, refreshed every quarter of `staleMs` (once a second at most often:
 * proper-lockfile's floor) while the process lives. Resolves once it holds the lock. `staleMs`
 * must be the one the runtime's side uses for that lock (the memory plugin's lockFile: 10 s; an
 * OAuth store's: its lockStaleMs), else a waiter that counts a shorter stale age takes a live
 * holder's lock over.
 */
export async function lockHolder(lockFile: string, staleMs = 10_000): Promise<ChildProcess> {
  const options = { lockfilePath: lockFile, realpath: false, stale: staleMs, update: staleMs / 4 };
  const script = `require("proper-lockfile").lock(${JSON.stringify(lockFile)}, ${JSON.stringify(options)}).then(() => { process.stdout.write("locked\\n"); setInterval(() => {}, 1000); });`;
  const child = spawn(process.execPath, ["-e", script], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.on("exit", (code) => reject(new Error(`the lock holder exited (${code}) before taking ${lockFile}`)));
  });
  return child;
}
