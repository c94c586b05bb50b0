import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, ROOT, writePlugin, type Connected } from "./helpers.js";

/**
 * Names and values beyond ASCII, over stdio with the built server: a lone surrogate in an argument
 * a REST path, a REST query or a program's argv would carry is refused naming the argument (it
 * failed as the service's "URI malformed", or silently became U+FFFD); a tool or argument name
 * written with a combining accent is matched to its composed form; and the text layer's
 * `--name value` takes a name in any script.
 */

const LONE = "a\ud800b";

describe("unicode names and values", () => {
  let backend: TestServer;
  let server: Connected;
  const dir = mkdtempSync(path.join(tmpdir(), "unicode-arguments-"));
  before(async () => {
    backend = await startServer((req, res) => sendJson(res, 200, { url: req.url, body: req.body }));
    writePlugin(path.join(dir, "agent-tools-plugin-items"), {
      name: "items",
      prefix: "items",
      description: "A REST service of items (tests only)",
      adapter: {
        kind: "rest",
        baseUrl: backend.url,
        tools: [
          { name: "get_item", path: "/items/{id}", readonly: true, inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
          { name: "search", path: "/search", query: ["q"], readonly: true, inputSchema: { type: "object", properties: { q: { type: "string" } } } },
        ],
      },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-args"), {
      name: "args",
      prefix: "args",
      description: "A CLI that prints its argv (tests only)",
      adapter: { kind: "cli", program: "argv-json", allowlist: ["argv-json"], tools: [{ name: "show", argv: ["{q}"], parse: "json", readonly: true, inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }] },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-uni"), {
      name: "uni",
      prefix: "uni",
      description: "An MCP server with tools named beyond ASCII (tests only)",
      adapter: { kind: "mcp", command: process.execPath, args: [path.join(ROOT, "test", "fixtures", "mcp", "unicode-names-server.mjs")] },
    });
    server = await connect(dir, { PATH: [CLI_FIXTURES, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter) });
  });
  after(async () => {
    await server.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** That an answer is ARG_VALIDATION_FAILED naming `argument` as holding a lone surrogate (a REST error names it in `details` too). */
  function assertLoneSurrogateRefused(payload: { error?: { code?: string; message?: string; hint?: string; details?: Record<string, unknown> } }, argument: string, inDetails = true): void {
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", new RegExp(`'${argument}' holds a lone surrogate \\(\\\\ud800 at position 1\\)`));
    assert.match(payload.error?.message ?? "", /nothing was sent\. Send the whole character/);
    if (inDetails) assert.equal(payload.error?.details?.argument, argument);
    assert.doesNotMatch(JSON.stringify(payload), /URI malformed|service behind/);
  }

  it("a lone surrogate in a REST path or query is refused naming the argument, and nothing is sent", async () => {
    const sent = backend.requests.length;
    const inPath = await callJson(server.client, "agent_tools_items_call", { toolName: "get_item", arguments: { id: LONE } });
    assertLoneSurrogateRefused(inPath.payload, "id");
    const inQuery = await callJson(server.client, "agent_tools_items_call", { toolName: "search", arguments: { q: LONE } });
    assertLoneSurrogateRefused(inQuery.payload, "q");
    assert.equal(backend.requests.length, sent, "no request reached the server");
    // A whole pair (an emoji) goes out as its UTF-8 bytes.
    const whole = await callJson(server.client, "agent_tools_items_call", { toolName: "search", arguments: { q: "a😀b" } });
    assert.equal((whole.payload.result as { data: { url: string } }).data.url, "/search?q=a%F0%9F%98%80b");
  });

  it("a lone surrogate in a program's argument is refused naming it, and a whole pair reaches the program", async () => {
    const refused = await callJson(server.client, "agent_tools_args_call", { toolName: "show", arguments: { q: LONE } });
    assertLoneSurrogateRefused(refused.payload, "q", false);
    const whole = await callJson(server.client, "agent_tools_args_call", { toolName: "show", arguments: { q: "a😀b" } });
    assert.deepEqual((whole.payload.result as { stdout: { argv: string[] } }).stdout.argv, ["a😀b"]);
  });

  it("a tool and an argument named with a combining accent are matched to their composed names, and the note says why", async () => {
    const { payload } = await callJson(server.client, "agent_tools_uni_call", { toolName: "cafe\u0301", arguments: { "cle\u0301": "v" } });
    assert.deepEqual(payload.result, { tool: "caf\u00e9", arguments: { "cl\u00e9": "v" } }, JSON.stringify(payload));
    const repairs = JSON.stringify(payload.repairs);
    assert.match(repairs, /tool name 'cafe\u0301' was matched to 'caf\u00e9' \(the same letters, written in another Unicode form/);
    assert.match(repairs, /argument 'cle\u0301' was matched to 'cl\u00e9' \(the same letters, written in another Unicode form/);
    // Case is folded as before, and its note says nothing of forms.
    const upper = await callJson(server.client, "agent_tools_uni_call", { toolName: "CAF\u00c9", arguments: { "cl\u00e9": "v" } });
    assert.equal((upper.payload.result as { tool: string }).tool, "caf\u00e9");
    assert.match(JSON.stringify(upper.payload.repairs), /tool name 'CAF\u00c9' was matched to 'caf\u00e9'"/);
  });

  it("the text layer's --name takes a name in any script", async () => {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: "uni call 搜索文件 --查询 'x y' | jq -c .result" });
    assert.equal(payload.exitCode, 0, JSON.stringify(payload));
    assert.deepEqual(JSON.parse(String(payload.stdout)), { tool: "搜索文件", arguments: { 查询: "x y" } });
    // A name that starts with a digit is still no name, and the message says where another goes.
    const digit = await callJson(server.client, "agent_tools_exec", { command: "uni call 搜索文件 --1查询 x" });
    assert.equal(digit.payload.exitCode, 2, JSON.stringify(digit.payload));
    assert.match(String(digit.payload.stderr), /'--1查询' is not a valid --name \(letters, digits, _ \. -, starting with a letter or _\); for any other name use the JSON form/);
  });
});
