import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected, type Payload } from "./helpers.js";

/**
 * How `PLUGIN call TOOL --name value` types each flag against the tool's schema, over stdio
 * against the built server and test/fixtures/mcp/lax-handshake-server.mjs --schema-shapes (tools
 * shaped as real servers list them; each answers the arguments it received, as JSON).
 */

const SERVER = path.join(FIXTURES, "mcp", "lax-handshake-server.mjs");
let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-flag-types-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [SERVER, "--schema-shapes"] } } }));
  conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
});
after(async () => {
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer extends Payload {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function exec(command: string): Promise<Answer> {
  const { payload } = await callJson(conn.client, "agent_tools_exec", { command });
  return payload as Answer;
}

/** What the tool received from `lax call LINE` (the call must succeed). */
async function received(line: string): Promise<unknown> {
  const answer = await exec(`lax call ${line} | jq -c .result`);
  assert.equal(answer.exitCode, 0, `${line}: ${answer.stdout}${answer.stderr}`);
  return JSON.parse(answer.stdout) as unknown;
}

describe("a flag for a string parameter is sent as the text written", () => {
  it("a title that starts with [, { or \" and is not JSON is the text, not a usage error", async () => {
    assert.deepEqual(await received("create_pr --title '[WIP] fix parser'"), { title: "[WIP] fix parser" });
    assert.deepEqual(await received(`create_pr --title '"quoted" word'`), { title: '"quoted" word' });
    assert.deepEqual(await received("create_pr --title '{owner}/{repo} broken'"), { title: "{owner}/{repo} broken" });
  });

  it("a title that parses as a JSON array or number is still its text; a quoted JSON string is the string", async () => {
    assert.deepEqual(await received("create_pr --title '[1, 2]'"), { title: "[1, 2]" });
    assert.deepEqual(await received("create_pr --title 123"), { title: "123" });
    assert.deepEqual(await received(`create_pr --title '"123"'`), { title: "123" });
  });

  it("for a parameter that takes no string, text that looks like JSON but does not parse is refused with the JSON to write", async () => {
    const answer = await exec("lax call create_pr --title t --labels '[a, b]'");
    assert.equal(answer.exitCode, 2);
    assert.match(answer.stderr, /\/labels: 'labels' must be an array \(--labels '\[a, b\]' looks like JSON but does not parse \([^)]*\), so it was sent as text, and 'labels' takes no string: write it as valid JSON in single quotes, e.g. --labels '\["a","b"\]'\)/);
    const object = await exec("lax call create_pr --title t --meta '{a: 1}'");
    assert.match(object.stderr, /e\.g\. --meta '\{"key":"value"\}'\)/);
    assert.deepEqual(await received(`create_pr --title t --labels '["a","b"]'`), { title: "t", labels: ["a", "b"] }, "the advice followed runs");
  });

  it("a plain word or a number given to a list parameter is refused with the JSON array to write, holding it", async () => {
    const word = await exec("lax call create_pr --title t --labels bug");
    assert.equal(word.exitCode, 2);
    assert.match(word.stderr, /\/labels: 'labels' must be an array \(--labels bug was sent as string, and 'labels' takes a list: write it as a JSON array in single quotes, --labels '\["bug"\]'\)/);
    const number = await exec("lax call create_pr --title t --labels 7");
    assert.match(number.stderr, /--labels 7 was sent as integer, and 'labels' takes a list: write it as a JSON array in single quotes, --labels '\["7"\]'/, "the items are strings: the number's text");
    const object = await exec("lax call create_pr --title t --meta draft");
    assert.match(object.stderr, /--meta draft was sent as text, and 'meta' takes an object: write it as JSON in single quotes, e\.g\. --meta '\{"key":"value"\}'/);
    assert.deepEqual(await received(`create_pr --title t --labels '["bug"]'`), { title: "t", labels: ["bug"] }, "the advice followed runs");
  });
});

describe("a flag for a nullable or referenced string parameter is sent as its text", () => {
  const shapes: [string, string][] = [
    ["assignee", "anyOf [string, null] (pydantic Optional[str])"],
    ["reviewer", "type [string, null]"],
    ["owner", "oneOf [string, null]"],
    ["login", "a local $ref to a string"],
  ];
  for (const [flag, shape] of shapes) {
    it(`${shape}: --${flag} 123 is the text "123"`, async () => {
      assert.deepEqual(await received(`nullable --${flag} 123`), { [flag]: "123" });
    });
  }

  it("null stays null where the schema takes null, and a nullable integer keeps its number", async () => {
    assert.deepEqual(await received("nullable --assignee null --limit 5"), { assignee: null, limit: 5 });
  });
});

describe("the note on a failed call advises the text form only where the parameter takes a string", () => {
  it("a number past its maximum gets no advice to write it as text (which would fail again)", async () => {
    const answer = await exec("lax call create_pr --title t --perPage 500");
    assert.equal(answer.exitCode, 2);
    assert.match(answer.stderr, /'perPage' must be <= 100\n/);
    assert.doesNotMatch(answer.stderr, /for the text write/);
  });
});

describe("TOOL --help", () => {
  it("answers the tool's description and schema and runs nothing", async () => {
    const answer = await exec("lax call create_pr --help");
    assert.equal(answer.exitCode, 0, answer.stderr);
    const shown = JSON.parse(answer.stdout) as { tool?: { name?: string; inputSchema?: { properties?: Record<string, unknown> } }; result?: unknown };
    assert.equal(shown.tool?.name, "create_pr");
    assert.ok(shown.tool?.inputSchema?.properties?.title, answer.stdout);
    assert.equal(shown.result, undefined, "the tool was not called (it would have answered {help: true})");
  });

  it("is a call like any other flag when given a value or beside other flags", async () => {
    assert.deepEqual(await received("create_pr --title t --help"), { title: "t", help: true });
  });

  it("of a tool the plugin does not have says so", async () => {
    const answer = await exec("lax call no_such_tool --help");
    assert.notEqual(answer.exitCode, 0);
    assert.match(answer.stderr, /UNKNOWN_TOOL/);
  });
});
