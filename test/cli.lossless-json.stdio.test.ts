import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * A cli tool with `parse: "json"`, through the built server over stdio, running a real program that
 * prints numbers JSON.parse would change: they come back as strings of their exact text, as a REST
 * body's do, not silently rounded (12345678901234567890 read as 12345678901234567000). Numbers whose
 * value is kept stay numbers.
 */

const PRINTED = '{"big":12345678901234567890,"nested":[{"seq":9007199254740993}],"small":1.50,"count":3,"huge":1e400}';

describe("cli parse: json keeps every number's value", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-cli-lossless-"));
  let agent: Connected;
  before(async () => {
    const folder = writePlugin(
      path.join(dir, "agent-tools-plugin-nums"),
      {
        name: "nums",
        prefix: "nums",
        description: "A program printing large numbers (tests only)",
        adapter: { kind: "cli", program: "./print-numbers.mjs", allowlist: ["./print-numbers.mjs"], tools: [{ name: "show", argv: ["show"], parse: "json", readonly: true }] },
      },
      { "print-numbers.mjs": `#!/usr/bin/env node\nprocess.stdout.write(${JSON.stringify(PRINTED)});\n` },
    );
    chmodSync(path.join(folder, "print-numbers.mjs"), 0o755);
    agent = await connect(dir, { PATH: [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter) });
  });
  after(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an integer past 2^53 (and one past a double's range) is a string of its exact text; the others stay numbers", async () => {
    const { payload, isError } = await callJson(agent.client, "agent_tools_nums_call", { toolName: "show" });
    assert.equal(isError, false, JSON.stringify(payload));
    const result = payload.result as { exitCode: number; stdout: unknown };
    assert.equal(result.exitCode, 0);
    assert.deepEqual(result.stdout, { big: "12345678901234567890", nested: [{ seq: "9007199254740993" }], small: 1.5, count: 3, huge: "1e400" });
  });
});
