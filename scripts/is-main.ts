import path from "node:path";
import { fileURLToPath } from "node:url";

/** Whether the module at `moduleUrl` is the script node was started with (paths with spaces or symlinks too), not an import of a test. */
export function isMain(moduleUrl: string): boolean {
  return !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}
