import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { VALIDATORS_FOLDER } from "../src/validators-folder.js";
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

/**
 * What scripts/bundle.ts writes whose names change between builds (`dist/chunks/<name>-<hash>.js`)
 * or whose files may go (`dist/validators.generated/`): removed when the bundler is run on its own
 * (`node --import tsx scripts/bundle.ts` after an edit), which keeps tsc's files in dist/. In
 * `npm run build` dist/ is already empty and this finds nothing.
 */
export function cleanBundleOutput(root = ROOT): void {
  for (const folder of ["chunks", VALIDATORS_FOLDER]) rmSync(path.join(root, "dist", folder), { recursive: true, force: true, maxRetries: 3 });
}

if (isMain(import.meta.url)) cleanDist();
