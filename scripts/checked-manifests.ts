import { readdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { CHECKED_MANIFESTS_FILE, manifestDigest } from "../src/plugins/checked-manifests.js";
import { readManifest } from "../src/plugins/manifest.js";

/**
 * Part of `npm run build` (scripts/bundle.ts): checks every bundled plugin's plugin.json with the
 * same code a start uses (run from the sources, so nothing is skipped) and records the SHA-256 of
 * each that passed in dist/checked-manifests.json (src/plugins/checked-manifests.ts says why). A
 * manifest that fails is left out of the record, so a start reports its problems as before.
 */
export async function writeCheckedManifests(root: string): Promise<{ checked: number; failed: string[] }> {
  const pluginsDir = path.join(root, "plugins");
  const sha256: string[] = [];
  const failed: string[] = [];
  for (const entry of readdirSync(pluginsDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith("agent-tools-plugin-")) continue;
    const file = path.join(pluginsDir, entry.name, "plugin.json");
    try {
      await readManifest(file);
      sha256.push(manifestDigest(await readFile(file, "utf8")));
    } catch (error) {
      failed.push(`${file}: ${(error as Error).message}`);
    }
  }
  writeFileSync(path.join(root, "dist", CHECKED_MANIFESTS_FILE), `${JSON.stringify({ sha256: sha256.sort() }, null, 2)}\n`);
  return { checked: sha256.length, failed };
}
