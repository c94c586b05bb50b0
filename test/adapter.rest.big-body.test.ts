import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { listenOnLoopback } from "./fixtures/loopback.js";
import { baseEnv, MCP_BIN, rssOf, writePlugin } from "./helpers.js";

// A backend that answers 600 MB: the runtime reads its body as a stream, stops at the cap
// (8 MiB by default) with RESULT_TOO_LARGE and a hint to ask for less, and its RSS stays within
// 100 MB of where it was. Chunked (no Content-Length) and announced (Content-Length) bodies both.

const MB = 1024 * 1024;
const TOTAL = 600 * MB;

interface Backend {
  url: string;
  sent: () => number;
  close: () => Promise<void>;
}

async function startBackend(): Promise<Backend> {
  let sent = 0;
  const chunk = Buffer.alloc(MB, '{"k":"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"},');
  const server: Server = createServer((req, res) => {
    const announce = req.url?.startsWith("/announced");
    res.writeHead(200, { "Content-Type": "application/json", ...(announce ? { "Content-Length": String(TOTAL) } : {}) });
    let written = 0;
    const pump = (): void => {
      while (written < TOTAL) {
        written += chunk.length;
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
      res.end();
    };
    res.on("close", () => res.removeAllListeners("drain"));
    pump();
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.origin, sent: () => sent, close: listening.close };
}

describe("a 600 MB REST answer", { timeout: 180_000 }, () => {
  let backend: Backend;
  let client: Client;
  let transport: StdioClientTransport;
  before(async () => {
    backend = await startBackend();
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-big-"));
    writePlugin(path.join(dir, "agent-tools-plugin-big"), {
      name: "big",
      prefix: "big",
      description: "A backend with a huge answer (tests only)",
      adapter: { kind: "rest", baseUrl: backend.url, timeoutMs: 120_000, tools: [{ name: "dump", method: "GET", path: "/dump" }, { name: "announced", method: "GET", path: "/announced" }] },
    });
    transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CALL_TIMEOUT_MS: "120000" }), cwd: dir, stderr: "pipe" });
    client = new Client({ name: "big-body-test", version: "0.0.0" });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    await backend.close();
  });

  for (const tool of ["dump", "announced"]) {
    it(`${tool}: refused with RESULT_TOO_LARGE and a hint, RSS within 100 MB`, async () => {
      const pid = transport.pid as number;
      await client.callTool({ name: "agent_tools_help", arguments: {} });
      const before = rssOf(pid);
      const sentBefore = backend.sent();
      const result = (await client.callTool({ name: "agent_tools_big_call", arguments: { toolName: tool, arguments: {} } })) as CallToolResult;
      const after = rssOf(pid);
      const payload = JSON.parse((result.content[0] as { text: string }).text) as { ok: boolean; error?: { code: string; message: string; hint: string; details?: Record<string, unknown> } };
      assert.equal(result.isError, true);
      assert.equal(payload.error?.code, "RESULT_TOO_LARGE", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", /over the 8 MiB the runtime reads \(maxResponseBytes, AGENT_TOOLS_MAX_RESPONSE_BYTES\)/);
      assert.match(payload.error?.hint ?? "", /Ask for less: .*filter.*page/);
      console.log(`[big-body] ${tool}: RSS before ${Math.round(before.rss / MB)} MB, peak before ${Math.round(before.peak / MB)} MB, after ${Math.round(after.rss / MB)} MB, peak after ${Math.round(after.peak / MB)} MB, backend sent ${Math.round((backend.sent() - sentBefore) / MB)} MB`);
      assert.ok(after.peak < before.rss + 100 * MB, `peak RSS ${Math.round(after.peak / MB)} MB stays within 100 MB of ${Math.round(before.rss / MB)} MB`);
      assert.ok(backend.sent() - sentBefore < TOTAL, "the runtime stopped reading: the backend did not get to send it all");
    });
  }
});
