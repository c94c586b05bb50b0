import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "./is-main.js";

/**
 * The first step of `npm run build`: empties dist/ so that it holds only what this build writes.
 * tsc and esbuild only add and overwrite, so a file whose source was renamed or removed (an old
 * checkout's dist/validators.generated.cjs, a chunk with an old hash) stayed behind, and the
 * package's "files" would publish it. A script rather than `rm -rf` so the build runs the same on
 * Windows, and no dependency (rimraf) for one call.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Remove `<root>/dist` and everything in it (nothing when it is not there). */
export function cleanDist(root = ROOT): void {
  // Retries: on Windows a file an editor or antivirus holds open fails the first time with EBUSY.
  rmSync(path.join(root, "dist"), { recursive: true, force: true, maxRetries: 3 });
}

if (isMain(import.meta.url)) cleanDist();
