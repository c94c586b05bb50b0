import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connect, FIXTURES, textJson, type Connected, type Payload } from "./helpers.js";
import { connectStdioV2, v2Client } from "./v2-helpers.js";

/**
 * Downstream answers that are awkward to pass on, over stdio against the built server and a real
 * fixture server (test/fixtures/mcp/odd-results-server.mjs; content lists an SDK server would not
 * send from test/fixtures/mcp/lax-handshake-server.mjs --odd-items): binary content, structuredContent
 * that misses the tool's own outputSchema or is absent though it declares one, a tool name listed twice; and servers that never
 * answer their start (test/fixtures/mcp/chatty-stdout-server.mjs), one of them logging to stdout.
 */

const SERVER = path.join(FIXTURES, "mcp", "odd-results-server.mjs");
const SECRET = "sk-chatty-0123456789abcdef";
const ODD_SECRET = "sk-oddMIME-0123456789abcdefXYZ";
let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-odd-"));
  const config = path.join(dir, "config.json");
  const chatty = path.join(FIXTURES, "mcp", "chatty-stdout-server.mjs");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        odd: { command: process.execPath, args: [SERVER], env: { ODD_TOKEN: "${ODD_TOKEN}" } },
        raw: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "lax-handshake-server.mjs"), "--odd-items"] },
        dup: { command: process.execPath, args: [SERVER, "--duplicate"] },
        dups: { command: process.execPath, args: [SERVER, "--many-duplicates"] },
        chatty: { command: process.execPath, args: [chatty, "--banner"], env: { CHATTY_TOKEN: "${CHATTY_TOKEN}" }, timeoutMs: 1500 },
        mute: { command: process.execPath, args: [chatty], timeoutMs: 1500 },
      },
    }),
  );
  conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, CHATTY_TOKEN: SECRET, ODD_TOKEN: ODD_SECRET });
});
after(async () => {
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("binary content of a downstream result", () => {
  it("is a placeholder in the JSON; images and audio follow it as MCP content", async () => {
    const raw = (await conn.client.callTool({ name: "agent_tools_odd_call", arguments: { toolName: "media" } })) as CallToolResult;
    assert.equal(raw.isError, false);
    assert.deepEqual(
      raw.content.map((c) => c.type),
      ["text", "image", "audio"],
    );
    const text = (raw.content[0] as { text: string }).text;
    assert.ok(text.length < 2000, `the answer's text is short, not base64 (${text.length} characters)`);
    const payload = textJson<Payload & { result: Record<string, unknown>[]; attached: string }>(raw);
    assert.equal(payload.truncated, undefined);
    assert.deepEqual(payload.result, [
      { type: "text", text: "here" },
      { type: "image", mimeType: "image/png", bytes: 300_000, binary: "binary left out of the text" },
      { type: "audio", mimeType: "audio/wav", bytes: 8, binary: "binary left out of the text" },
      { type: "resource", uri: "file:///x.bin", mimeType: "application/octet-stream", bytes: 4, binary: "binary left out of the text" },
      { type: "resource_link", uri: "file:///y.txt", name: "y" },
    ]);
    assert.equal(payload.attached, "image (image/png), audio (audio/wav) of the result follow this text as MCP content, in order");
    const image = raw.content[1] as { data: string; mimeType: string };
    assert.equal(image.mimeType, "image/png");
    assert.deepEqual(Buffer.from(image.data, "base64"), Buffer.alloc(300_000, 7));
    assert.equal(Buffer.from((raw.content[2] as { data: string }).data, "base64").toString(), "RIFFxxxx");
  });

  it("passes images on up to the 4 MiB cap; the placeholders of the rest say so", async () => {
    const raw = (await conn.client.callTool({ name: "agent_tools_odd_call", arguments: { toolName: "big_images" } })) as CallToolResult;
    assert.deepEqual(
      raw.content.map((c) => c.type),
      ["text", "image", "image"],
    );
    const payload = textJson<Payload & { result: { bytes: number; binary: string }[] }>(raw);
    assert.deepEqual(
      payload.result.map((r) => r.bytes),
      [2 * 1024 * 1024, 2 * 1024 * 1024, 2 * 1024 * 1024],
    );
    assert.equal(payload.result[0]?.binary, "binary left out of the text");
    assert.match(payload.result[2]?.binary ?? "", /not passed on either: the images and audio of one answer are capped at 4 MiB in all/);
  });
});

describe("media types and counts of passed-on images", () => {
  it("a credential in an image's mimeType is masked everywhere: placeholder, `attached`, and the image passed on (2025 era)", async () => {
    const raw = (await conn.client.callTool({ name: "agent_tools_odd_call", arguments: { toolName: "secret_mime" } })) as CallToolResult;
    assert.ok(!JSON.stringify(raw).includes(ODD_SECRET.slice(0, 12)), JSON.stringify(raw));
    const payload = textJson<Payload & { result: { mimeType: string }[]; attached: string }>(raw);
    assert.equal(payload.result[0]?.mimeType, "image/png; key=[redacted]");
    assert.equal(payload.attached, "image (image/png) of the result follows this text as MCP content, in order");
    assert.equal((raw.content[1] as { mimeType: string }).mimeType, "image/png", "the image passed on has its type/subtype only");
  });

  it("the same over a client of the 2026-07-28 era", async () => {
    const modern = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "no-plugins"), AGENT_TOOLS_CONFIG: path.join(dir, "config.json"), ODD_TOKEN: ODD_SECRET });
    try {
      const raw = (await modern.client.callTool({ name: "agent_tools_odd_call", arguments: { toolName: "secret_mime" } })) as CallToolResult;
      assert.ok(!JSON.stringify(raw).includes(ODD_SECRET.slice(0, 12)), JSON.stringify(raw));
      assert.deepEqual(
        raw.content.map((c) => c.type),
        ["text", "image"],
      );
      assert.equal((raw.content[1] as { mimeType: string }).mimeType, "image/png");
    } finally {
      await modern.client.close();
    }
  });

  it("5,000 tiny images: 20 are passed on, `attached` stays short and says the rest are not", async () => {
    const raw = (await conn.client.callTool({ name: "agent_tools_odd_call", arguments: { toolName: "many_images" } })) as CallToolResult;
    assert.equal(raw.content.length, 21, "the text, then at most 20 images");
    const payload = textJson<Payload & { result: string; attached: string }>(raw);
    assert.ok(payload.attached.length < 1000, `attached is short (${payload.attached.length} characters)`);
    assert.match(payload.attached, /^image \(image\/png\)(, image \(image\/png\)){19} of the result follow this text as MCP content, in order; an answer passes on at most 20: the placeholders in `result` say which were not$/);
    assert.ok(payload.truncated, "the 5,000 placeholders are past the result cap");
    assert.match(payload.result, /one answer passes on at most 20 images and audio; ask the tool for fewer at a time to get the rest/);
  });
});

describe("numbers in a JSON text", () => {
  it("a JSON text holding a number whose value JSON.parse would change (past 2^53) stays the text", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "bignum_text" });
    assert.equal(payload.result, '{"id": 12345678901234567890, "price": 1.50, "n": [1, 2]}');
  });

  it("one whose numbers keep their value is parsed (`1.50` is 1.5) (digits inside its strings do not count)", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "plain_json_text" });
    assert.deepEqual(payload.result, { id: 9007199254740991, price: 1.5, label: "v1.0 of 12345678901234567890" });
  });
});

describe("odd content lists", () => {
  it("an error result with an image beside its text: the text is the error's message", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "error_with_image" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.equal(payload.error?.message, "the tool answered with an error: quota exceeded: try later");
    // details carries what the message does not quote: the image's placeholder, never the text again.
    const content = payload.error?.details?.content as { type: string }[];
    assert.deepEqual(content.map((item) => item.type), ["image"]);
    assert.ok(!JSON.stringify(payload.error?.details).includes("quota exceeded"), JSON.stringify(payload.error?.details));
  });

  for (const [tool, said] of [
    ["null_item", "content[1] is null"],
    ["unknown_item", "content[1] has type 'hologram', which MCP does not have (text, image, audio, resource, resource_link)"],
  ] as const) {
    it(`${tool}: a short UPSTREAM_ERROR naming the item, never the SDK's schema dump`, async () => {
      const { payload, isError } = await callJson(conn.client, "agent_tools_raw_call", { toolName: tool });
      assert.equal(isError, true);
      const error = payload.error!;
      assert.equal(error.code, "UPSTREAM_ERROR", JSON.stringify(error));
      assert.ok(error.message.includes(said), error.message);
      assert.doesNotMatch(JSON.stringify(payload), /invalid_union|Invalid input/);
      assert.ok(error.message.length < 400, error.message);
    });
  }
});

describe("a downstream that answers a call with a JSON-RPC error", () => {
  it("whose message is a validator's dump of many lines (the SDK server refusing its own answer): quoted on one line, bounded", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "self_checked" });
    assert.equal(isError, true);
    const error = payload.error!;
    assert.equal(error.code, "UPSTREAM_ERROR", JSON.stringify(error));
    assert.match(error.message, /^tool 'odd\/self_checked' failed: MCP server 'odd' answered tools\/call 'self_checked' with an error: MCP error -32602: Invalid tools\/call result: \[ \{ "code": "invalid_union",/);
    assert.doesNotMatch(error.message, /\n/, "one line");
    assert.match(error.message, /… \(\d+ more characters left out\)$/, "cut, saying how much was left out");
    assert.ok(error.message.length <= 2_200, `bounded: ${error.message.length} characters`);
  });
});

describe("structuredContent that misses the tool's own outputSchema", () => {
  it("is passed on, with a warning that names the mismatch", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "mismatch" });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, { n: "not a number", extra: 1 });
    const warnings = payload.warnings as string[];
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /^tool 'mismatch' answered structuredContent that does not match its own outputSchema \(.*n.*must be number.*\); it is passed on as the server sent it$/);
  });

  it("an answer with no structuredContent at all is passed on too, with a warning that says so", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_odd_call", { toolName: "unstructured" });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.result, "n is 4", "the server's text content is the result");
    assert.deepEqual(payload.warnings, ["tool 'unstructured' declared an outputSchema but answered without structuredContent (only content); it is passed on as the server sent it"]);
    // The next call on the same connection is served and warned the same way (nothing kept from the last).
    const again = await callJson(conn.client, "agent_tools_odd_call", { toolName: "unstructured" });
    assert.equal(again.payload.result, "n is 4");
    assert.equal((again.payload.warnings as string[]).length, 1);
    const fits = await callJson(conn.client, "agent_tools_odd_call", { toolName: "echo", arguments: { text: "x" } });
    assert.equal(fits.payload.warnings, undefined, "a tool without an outputSchema is not warned about");
  });
});

describe("a tool name a server lists twice", () => {
  it("is served once, the first listed, and said once in the help's problems and on stderr", async () => {
    const discover = await callJson(conn.client, "agent_tools_dup_discover", {});
    assert.deepEqual(
      (discover.payload.matches as { name: string }[]).map((m) => m.name).filter((n) => n === "echo"),
      ["echo"],
    );
    const called = await callJson(conn.client, "agent_tools_dup_call", { toolName: "echo", arguments: { text: "x" } });
    assert.equal(called.isError, false, JSON.stringify(called.payload));
    assert.equal(called.payload.result, 'echo {"text":"x"}');
    const line = "plugin 'dup': its server lists tool 'echo' twice; the first is used (discover shows it once, and calls are checked against its schema)";
    const help = await callJson(conn.client, "agent_tools_help", {});
    assert.deepEqual(
      (help.payload.problems as string[]).filter((p) => p.includes("'dup'")),
      [line],
    );
    assert.equal(conn.stderr().split(line).length - 1, 1, conn.stderr());
  });

  it("a server with 14 repeated names: help shows 9 of them and a count of the rest; stderr says each", async () => {
    await callJson(conn.client, "agent_tools_dups_discover", {});
    const lines = ((await callJson(conn.client, "agent_tools_help", {})).payload.problems as string[]).filter((p) => p.includes("dups"));
    assert.equal(lines.length, 10, JSON.stringify(lines));
    assert.equal(lines.filter((p) => /^plugin 'dups': its server lists tool '(echo|dup_\d+)' twice; the first is used/.test(p)).length, 9);
    assert.equal(lines[9], "plugin 'dups': 5 more problems with its tool list (the runtime's log, stderr, says each when the list is read)");
    const own = (await callJson(conn.client, "agent_tools_help", { plugin: "dups" })).payload.problems as string[];
    assert.deepEqual(own, lines, "the plugin's own help says the same capped list");
    for (const name of ["echo", ...Array.from({ length: 13 }, (_, i) => `dup_${i + 1}`)]) {
      assert.match(conn.stderr(), new RegExp(`plugin 'dups': its server lists tool '${name}' twice`), name);
    }
  });
});

describe("a stdio server that never answers its start", () => {
  for (const round of ["the first call", "a call during the backoff"]) {
    it(`logging to stdout: ${round} names its stdout lines, masked, with a hint about its config entry`, async () => {
      const { payload, isError } = await callJson(conn.client, "agent_tools_chatty_call", { toolName: "anything" });
      assert.equal(isError, true);
      const error = payload.error!;
      assert.equal(error.code, "UPSTREAM_ERROR", JSON.stringify(error));
      assert.match(error.message, /MCP server 'chatty' did not finish starting within 1500 ms; it wrote lines to stdout that are not JSON-RPC \(stdout carries only JSON-RPC; logs go to stderr\): "Starting server v1\.2\.\.\.", "using token /);
      assert.ok(!JSON.stringify(payload).includes(SECRET), "the secret in its stdout is masked");
      assert.match(error.hint, /must write only JSON-RPC to stdout.*Make it log to stderr.*or wrap `mcpServers\.chatty\.command`.*Tool arguments cannot fix this\./);
    });
  }

  for (const round of ["the first call", "a call during the backoff"]) {
    it(`silent: ${round} is UPSTREAM_ERROR with a hint about the server, not about narrowing the call`, async () => {
      const { payload } = await callJson(conn.client, "agent_tools_mute_call", { toolName: "anything" });
      const error = payload.error!;
      assert.equal(error.code, "UPSTREAM_ERROR", JSON.stringify(error));
      assert.match(error.message, /MCP server 'mute' did not finish starting within 1500 ms/);
      assert.match(error.hint, /did not answer the MCP handshake.*a larger `mcpServers\.mute\.timeoutMs`.*Tool arguments cannot fix this\./);
      assert.doesNotMatch(error.hint, /narrower/);
    });
  }
});
