import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { opaqueCatalog } from "../bench/api-intents-variants.js";
import { ROOT } from "./helpers.js";

/**
 * The tuning scripts' inputs: a mistyped set or a help flag gets a clear answer and an exit code,
 * never a silent empty run or a folder named `--help`; the opaque variant never lets a real tool
 * name through. The scripts run as real processes from a foreign working directory.
 */
/** Run a bench script from an empty foreign folder; `left` is what it made there. */
const runScript = (script: string, args: string[], env: Record<string, string> = {}) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), "bench-args-"));
  try {
    const run = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(ROOT, "bench", script), ...args], {
      cwd,
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, left: readdirSync(cwd) };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
};

describe("bench scripts: arguments", () => {
  it("api-intents-variants: --help prints the usage and exits 0 without making a folder; no OUTDIR exits 2", () => {
    const help = runScript("api-intents-variants.ts", ["--help"]);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /usage: .*api-intents-variants\.ts OUTDIR/);
    assert.deepEqual(help.left, [], "no folder named --help");
    const missing = runScript("api-intents-variants.ts", []);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /OUTDIR is missing/);
  });

  it("semantic-tune: an unknown TUNE_SETS label exits 2 naming it and the known ones, before any data set is read", () => {
    const run = runScript("semantic-tune.ts", [], { TUNE_SETS: "fleet,apii", SEAL_TOOLS_DIR: "/nonexistent-seal-tools" });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /unknown set\(s\): apii; the known ones are fleet, api, api-stripped, api-opaque, github, seal-tune/);
    assert.doesNotMatch(run.stderr, /ENOENT/, "no Seal-Tools file was read");
  });

  it("query-length: an unknown set, variant or expansion mode exits 2 naming it and the known ones, before any data set is read", () => {
    const env = { AGENT_TOOLS_CACHE_DIR: os.tmpdir(), SEAL_TOOLS_DIR: "/nonexistent-seal-tools" };
    const sets = runScript("query-length.ts", [], { ...env, QL_SETS: "fleet,seall" });
    assert.equal(sets.status, 2, sets.stderr);
    assert.match(sets.stderr, /QL_SETS names unknown seall; the known ones are fleet, api, api-stripped, api-opaque, github, seal/);
    const modes = runScript("query-length.ts", [], { ...env, QL_MODES: "on,pool9" });
    assert.equal(modes.status, 2, modes.stderr);
    assert.match(modes.stderr, /QL_MODES names unknown pool9; the known ones are on, off, pool4, pool3/);
    assert.doesNotMatch(sets.stderr + modes.stderr, /ENOENT/, "no Seal-Tools file was read");
  });

  it("opaqueCatalog: a relevant tool missing from the catalog throws naming it", () => {
    const tools = [{ server: "s", name: "bookFlight", description: "Book a flight", inputSchema: { type: "object" } }];
    const renamed = opaqueCatalog(tools, [{ id: "q1", query: "fly", relevant: ["bookFlight"] }]);
    assert.deepEqual(renamed.queries[0]!.relevant, ["tool-1"]);
    assert.throws(() => opaqueCatalog(tools, [{ id: "q2", query: "fly and stay", relevant: ["bookFlight", "bookHotel"] }]), /not in the catalog: bookHotel/);
  });
});

describe("bench/perf.ts: arguments", () => {
  it("an unknown --only name exits 2 listing the measures, instead of measuring nothing and reporting every goal met", () => {
    const run = runScript("perf.ts", ["--only", "echo,lsting", "--rounds", "1"]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--only names no measure called 'lsting'; the measures are echo, spawn, listing, rss, http, search/);
    assert.doesNotMatch(run.stdout, /every goal/);
  });

  it("a --baseline or --http-baseline that is not there exits 2 naming the path, before anything starts", () => {
    for (const flag of ["--baseline", "--http-baseline"]) {
      const run = runScript("perf.ts", ["--only", "echo", "--rounds", "1", flag, "../other-checkout/dist/bin/agent-tools-mcp.js"]);
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`${flag} \\.\\./other-checkout/dist/bin/agent-tools-mcp\\.js: no such file`));
      assert.equal(run.stdout, "", "nothing was measured");
    }
  });
});
