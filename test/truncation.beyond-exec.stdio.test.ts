import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { callJson, connect, FIXTURES, writePlugin, type Connected, type Payload } from "./helpers.js";

/**
 * Where a cut result's note sends the model, over real stdio against the built server: a real
 * MCP fixture server (test/fixtures/mcp/odd-results-server.mjs, big_text) and a real CLI script
 * (test/fixtures/cli/flood) under the cli adapter's default maxOutputBytes (1 MiB). The note
 * offers agent_tools_exec only when exec would get the result whole: a result whose JSON is past
 * the sandbox's 5,000,000 characters is cut there again, and a program's output the adapter
 * already cut is the same cut output there, so for those it only asks for less, and says why.
 * The CLI result says it was cut before its stdout, so the head a model reads says so too. And
 * exec's own cut of stdout and stderr (and a failed program's stderr tail, test/fixtures/cli/print-bytes)
 * never splits an emoji's surrogate pair.
 */

const ODD = path.join(FIXTURES, "mcp", "odd-results-server.mjs");
const FLOOD = path.join(CLI_FIXTURES, "flood");
const PRINT_BYTES = path.join(CLI_FIXTURES, "print-bytes");
const EXEC_OFFER = /agent_tools_exec \(`odd call big_text/;
/** A lone half of a surrogate pair: not text (U+FFFD on screen; some JSON readers refuse it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Cut = { originalChars: number; shownChars: number; note: string };

interface ExecAnswer extends Payload {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated?: { stdout?: { totalChars: number; shownChars: number }; stderr?: { totalChars: number; shownChars: number }; note: string };
}

let dir: string;
let server: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-beyond-exec-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [ODD] } } }));
  // No maxOutputBytes: the adapter's default 1 MiB, what a plugin gets unless it says otherwise.
  writePlugin(path.join(dir, "plugins", "agent-tools-plugin-flood"), {
    name: "flood",
    prefix: "flood",
    description: "A program that writes as many bytes as asked (tests only)",
    adapter: {
      kind: "cli",
      program: FLOOD,
      allowlist: [FLOOD],
      tools: [{ name: "write_bytes", argv: ["{bytes}"], readonly: true, inputSchema: { type: "object", properties: { bytes: { type: "integer" } }, required: ["bytes"] } }],
    },
  });
  writePlugin(path.join(dir, "plugins", "agent-tools-plugin-fails"), {
    name: "fails",
    prefix: "fails",
    description: "A program that fails with the stderr asked for (tests only)",
    adapter: {
      kind: "cli",
      program: PRINT_BYTES,
      allowlist: [PRINT_BYTES],
      tools: [{ name: "fail_saying", argv: ["", "1", "{stderr}"], readonly: true, inputSchema: { type: "object", properties: { stderr: { type: "string" } }, required: ["stderr"] } }],
    },
  });
  // An odd cap, so a head of stdout (and a tail of stderr) of emoji would end inside a pair.
  server = await connect(path.join(dir, "plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_EXEC_MAX_OUTPUT_CHARS: "1001", AGENT_TOOLS_CALL_TIMEOUT_MS: "120000", AGENT_TOOLS_EXEC_TIMEOUT_MS: "120000" });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cutOf(tool: string, args: Record<string, unknown>): Promise<{ result: unknown; truncated: Cut }> {
  const { payload, isError } = await callJson(server.client, tool, args);
  assert.equal(isError, false, JSON.stringify(payload.error));
  assert.ok(payload.truncated, "the typed tool cut the result");
  return { result: payload.result, truncated: payload.truncated as Cut };
}

async function exec(command: string): Promise<ExecAnswer> {
  const { payload } = await callJson(server.client, "agent_tools_exec", { command });
  return payload as ExecAnswer;
}

describe("a cut result's note offers agent_tools_exec only when exec would get it whole", () => {
  it("an MCP result whose JSON is exactly the sandbox's 5,000,000 characters: the note gives the exec line", async () => {
    const { truncated } = await cutOf("agent_tools_odd_call", { toolName: "big_text", arguments: { units: 4_999_998 } });
    assert.equal(truncated.originalChars, 5_000_000);
    assert.match(truncated.note, EXEC_OFFER);
    assert.match(truncated.note, /which takes results up to 5,000,000 characters, and filter it there with jq or grep\.$/);
  });

  it("one character more: the note asks for less, says why, and names no exec line", async () => {
    const { truncated } = await cutOf("agent_tools_odd_call", { toolName: "big_text", arguments: { units: 4_999_999 } });
    assert.equal(truncated.originalChars, 5_000_001);
    assert.equal(
      truncated.note,
      "The result was cut to fit; `result` holds the first characters of its JSON. Its JSON is 5,000,001 characters, more than agent_tools_exec takes (5,000,000), so it cannot be had whole there either. Ask for less: the tool's filter, search, fields or page-size arguments (e.g. limit, per_page, fields, q), a narrower range, or one page at a time.",
    );
  });

  it("a program's output the cli adapter cut at its default 1 MiB: the head says so before stdout, and the note names the cap, not exec", async () => {
    const { result, truncated } = await cutOf("agent_tools_flood_call", { toolName: "write_bytes", arguments: { bytes: 2_000_000 } });
    assert.equal(typeof result, "string");
    assert.ok((result as string).startsWith('{"exitCode":0,"truncated":true,"stdoutBytes":2000000,"stderrBytes":0,"maxOutputBytes":1048576,"stdout":"é'), (result as string).slice(0, 200));
    assert.ok(truncated.originalChars < 5_000_000, "the cut result would fit in exec: the adapter's cut is what rules exec out");
    assert.match(truncated.note, /The program's output had already been cut at the plugin's maxOutputBytes \(1,048,576 bytes; see `truncated` and `stdoutBytes` at the start of the result\), so no call gets more of it, in agent_tools_exec neither\. Ask for less: /);
    assert.doesNotMatch(truncated.note, /make the same call/);
    // What the note says of exec holds: the same call there holds the same cut output.
    const there = await exec(`flood call write_bytes '{"bytes":2000000}' | jq -c '[.result.truncated, .result.stdoutBytes, (.result.stdout | length)]'`);
    assert.equal(there.exitCode, 0, there.stderr);
    assert.deepEqual(JSON.parse(there.stdout), [true, 2_000_000, 1_048_575]);
  });

  it("a program's output within the cap but past the typed cap: the note gives the exec line", async () => {
    const { result, truncated } = await cutOf("agent_tools_flood_call", { toolName: "write_bytes", arguments: { bytes: 300_000 } });
    assert.ok((result as string).startsWith('{"exitCode":0,"stdout":"é'), (result as string).slice(0, 60));
    assert.match(truncated.note, /; or make the same call in agent_tools_exec \(`flood call write_bytes '\{"bytes":300000\}'`\), which takes results up to 5,000,000 characters/);
  });
});

describe("a cut of stdout or stderr keeps each emoji whole", () => {
  it("the head of stdout ends before a pair the cap would split, and says how much it shows", async () => {
    // 1,500 units of emoji and a newline: unit 1,001 is the first half of a pair.
    const answer = await exec(`odd call big_text '{"units":1500,"kind":"emoji"}' | jq -r .result`);
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.doesNotMatch(answer.stdout, LONE_SURROGATE);
    assert.equal(answer.stdout, "😀".repeat(500));
    assert.deepEqual(answer.truncated?.stdout, { totalChars: 1501, shownChars: 1000 });
  });

  it("the tail of stderr starts after a pair the cap would split", async () => {
    // 1,500 units of emoji, "!" and a newline: the tail's first unit would be a pair's second half.
    const answer = await exec(`odd call big_text '{"units":1500,"kind":"emoji"}' | jq -r '.result + "!"' >&2`);
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.doesNotMatch(answer.stderr, LONE_SURROGATE);
    assert.equal(answer.stderr, `${"😀".repeat(499)}!\n`);
    assert.deepEqual(answer.truncated?.stderr, { totalChars: 1502, shownChars: 1000 });
  });

  it("a failed program's error quotes the tail of its stderr without a lone half of a pair", async () => {
    // 1,201 units: the error's last 1,000 would start with the second half of an emoji.
    const { payload } = await callJson(server.client, "agent_tools_fails_call", { toolName: "fail_saying", arguments: { stderr: `${"😀".repeat(600)}x` } });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    const message = payload.error?.message ?? "";
    assert.doesNotMatch(message, LONE_SURROGATE);
    assert.ok(message.endsWith(`; stderr: …${"😀".repeat(499)}x`), message.slice(-40));
  });
});
