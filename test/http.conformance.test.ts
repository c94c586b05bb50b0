import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "./helpers.js";
import { httpForSuite } from "./http-helpers.js";

// The official MCP conformance suite (0.1.13, the last release that runs on Node 20) against the
// built HTTP server, with the scenarios that do not apply listed in test/conformance-baseline.yml.

const CONFORMANCE = path.join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const BASELINE = path.join(ROOT, "test", "conformance-baseline.yml");
const MUST_PASS = ["server-initialize", "ping", "logging-set-level", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection"];

function runSuite(url: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONFORMANCE, "server", "--url", url, "--suite", "all", "--expected-failures", BASELINE], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the MCP conformance suite against the HTTP facade", () => {
  const http = httpForSuite();

  it("passes every applicable scenario, and the baseline is exact", async () => {
    const { code, output } = await runSuite(http.url.replace("127.0.0.1", "localhost"));
    assert.equal(code, 0, output);
    assert.match(output, /Baseline check passed/);
    for (const scenario of MUST_PASS) assert.match(output, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), `${scenario}\n${output}`);
  });
});
