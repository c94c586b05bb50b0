import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { cleanBundleOutput, cleanDist } from "../scripts/clean-dist.js";

/**
 * `npm run build` starts from an empty dist/, so output whose source is gone (an old checkout's
 * dist/validators.generated.cjs) does not stay behind. Run on a copy-shaped temporary folder: the
 * real dist/ is what the other tests spawn.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("build: clean dist", () => {
  it("the build script empties dist/ before tsc and the bundler write to it", () => {
    const build = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
    const steps = build.split("&&").map((step) => step.trim());
    assert.equal(steps[0], "node --import tsx scripts/clean-dist.ts", `the first step of "${build}"`);
    assert.ok(steps.slice(1).some((step) => step.startsWith("tsc ")), "tsc runs after it");
  });

  it("removes stale output from dist/, and nothing beside it", () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-clean-dist-"));
    mkdirSync(path.join(root, "dist", "chunks"), { recursive: true });
    mkdirSync(path.join(root, "src"));
    writeFileSync(path.join(root, "dist", "validators.generated.cjs"), "// stale: nothing reads this any more\n");
    writeFileSync(path.join(root, "dist", "chunks", "runtime-OLDHASH.js"), "");
    writeFileSync(path.join(root, "src", "index.ts"), "export {};\n");
    writeFileSync(path.join(root, "package.json"), "{}\n");
    cleanDist(root);
    assert.equal(existsSync(path.join(root, "dist")), false);
    assert.equal(readFileSync(path.join(root, "src", "index.ts"), "utf8"), "export {};\n");
    assert.ok(existsSync(path.join(root, "package.json")));
    // A fresh checkout has no dist/: the first build must not fail on it.
    assert.doesNotThrow(() => cleanDist(root));
  });

  it("the bundler run on its own first removes its chunks and validators, and keeps tsc's files", () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-clean-bundle-"));
    mkdirSync(path.join(root, "dist", "chunks"), { recursive: true });
    mkdirSync(path.join(root, "dist", "validators.generated"));
    mkdirSync(path.join(root, "dist", "runtime"));
    writeFileSync(path.join(root, "dist", "chunks", "runtime-OLDHASH.js"), "");
    writeFileSync(path.join(root, "dist", "validators.generated", "gone.cjs"), "");
    writeFileSync(path.join(root, "dist", "runtime", "runtime.js"), "export {};\n");
    cleanBundleOutput(root);
    assert.equal(existsSync(path.join(root, "dist", "chunks")), false);
    assert.equal(existsSync(path.join(root, "dist", "validators.generated")), false);
    assert.equal(readFileSync(path.join(root, "dist", "runtime", "runtime.js"), "utf8"), "export {};\n");
    assert.doesNotThrow(() => cleanBundleOutput(root));
  });
});
