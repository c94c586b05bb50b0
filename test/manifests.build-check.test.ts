import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { CHECKED_MANIFESTS_FILE, manifestDigest } from "../src/plugins/checked-manifests.js";
import { readManifest } from "../src/plugins/manifest.js";
import { ROOT, runCli } from "./helpers.js";

// The build checks the bundled plugins' manifests and records them (scripts/checked-manifests.ts),
// so a start of the built runtime skips checking them again and never loads the validators.
const bundled = readdirSync(path.join(ROOT, "plugins"))
  .filter((name) => name.startsWith("agent-tools-plugin-"))
  .map((name) => path.join(ROOT, "plugins", name, "plugin.json"));

describe("bundled manifests checked at build time", () => {
  it("the build's record holds the SHA-256 of every bundled plugin.json, each of which passes the check", async () => {
    const record = JSON.parse(readFileSync(path.join(ROOT, "dist", CHECKED_MANIFESTS_FILE), "utf8")) as { sha256: string[] };
    assert.ok(bundled.length >= 8, `bundled manifests: ${bundled.join(", ")}`);
    for (const file of bundled) {
      await readManifest(file); // run from the sources: always checked
      assert.ok(record.sha256.includes(manifestDigest(readFileSync(file, "utf8"))), `${file} is in dist/${CHECKED_MANIFESTS_FILE} (run npm run build)`);
    }
    assert.equal(record.sha256.length, bundled.length);
  });

  it("the built runtime still checks a user's manifest, even one copied from a bundled plugin and then broken", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-checked-"));
    const plugin = path.join(dir, "plugins", "agent-tools-plugin-copy");
    mkdirSync(plugin, { recursive: true });
    const source = bundled.find((file) => file.includes("agent-tools-plugin-tasks")) ?? bundled[0]!;
    const doc = JSON.parse(readFileSync(source, "utf8")) as Record<string, unknown>;
    // The same text as the bundled one but outside the runtime's plugins/ folder: checked (and valid).
    writeFileSync(path.join(plugin, "plugin.json"), readFileSync(source, "utf8"));
    const fine = await runCli(["validate", "--plugins-dir", path.join(dir, "plugins")], { PATH: process.env.PATH ?? "", HOME: dir, XDG_STATE_HOME: dir, XDG_CACHE_HOME: dir });
    assert.doesNotMatch(fine.stdout + fine.stderr, /agent-tools-plugin-copy[^\n]*field/, fine.stdout + fine.stderr);
    // Broken: the check names the field.
    writeFileSync(path.join(plugin, "plugin.json"), JSON.stringify({ ...doc, name: "copy", description: 42 }, null, 2));
    const broken = await runCli(["validate", "--plugins-dir", path.join(dir, "plugins")], { PATH: process.env.PATH ?? "", HOME: dir, XDG_STATE_HOME: dir, XDG_CACHE_HOME: dir });
    assert.equal(broken.code, 1, broken.stdout + broken.stderr);
    assert.match(broken.stdout + broken.stderr, /agent-tools-plugin-copy[^\n]*description/, broken.stdout + broken.stderr);
  });
});
