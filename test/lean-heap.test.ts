import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { baseEnv, FIXTURES, MCP_BIN, PLUGINS } from "./helpers.js";
import { youngGenerationChosen } from "../src/lean-heap.js";
import { until } from "./wait.js";

/**
 * src/lean-heap.ts: the stdio server keeps V8's young generation at its first size (1 MiB a
 * semi-space) through `v8.setFlagsFromString`, which Node says may do nothing once V8 runs. So
 * this asks a real server how big its young generation is (V8's new space: both semi-spaces) after
 * a start and twenty searches: 2 MiB, where the same work grows it to 32 MiB (16 MiB a semi-space)
 * with AGENT_TOOLS_LEAN_HEAP=off.
 */

const ONE_SEMI_SPACE_PAIR = 2 * 1024 * 1024;

async function newSpaceAfterWork(env: Record<string, string>, nodeFlags: string[] = []): Promise<number> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeFlags, "--import", path.join(FIXTURES, "heap-spaces-probe.mjs"), MCP_BIN],
    // BM25F alone: the sentence model's worker thread would reset V8's growth factor (lean-heap.ts).
    env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_SEARCH_ENGINE: "bm25f", ...env }),
    cwd: FIXTURES,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "lean-heap-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    assert.ok((await client.listTools()).tools.length > 0, "the server answers tools/list");
    for (let i = 0; i < 20; i++) {
      const result = await client.callTool({ name: "agent_tools_search", arguments: { query: `notes tracker item ${i}` } });
      assert.notEqual(result.isError, true, "each search answers");
    }
    process.kill(transport.pid!, "SIGUSR2");
    await until(() => /\[new-space\] \d+/.test(stderr), "the heap probe's line on stderr").catch(() => undefined);
    const bytes = Number(/\[new-space\] (\d+)/.exec(stderr)?.[1]);
    assert.ok(Number.isFinite(bytes) && bytes > 0, `the probe reported the new space (stderr: ${stderr.slice(-300)})`);
    return bytes;
  } finally {
    await client.close();
  }
}

describe("lean heap: the stdio server's young generation", () => {
  it("stays at one 1 MiB semi-space pair through a start and twenty searches; the same work grows it with AGENT_TOOLS_LEAN_HEAP=off", async () => {
    const lean = await newSpaceAfterWork({});
    const grown = await newSpaceAfterWork({ AGENT_TOOLS_LEAN_HEAP: "off" });
    assert.ok(lean <= ONE_SEMI_SPACE_PAIR, `lean: ${lean} bytes of new space`);
    assert.ok(grown > ONE_SEMI_SPACE_PAIR, `off: ${grown} bytes of new space (the work must be enough to grow it, or the first check proves nothing)`);
  });

  it("leaves a young generation the user sized with node's flags alone", async () => {
    assert.equal(youngGenerationChosen(["--max-semi-space-size=32"], undefined), true);
    assert.equal(youngGenerationChosen([], "--max-old-space-size=512 --min_semi_space_size=4"), true);
    assert.equal(youngGenerationChosen([], "--semi-space-growth-factor=4"), true);
    assert.equal(youngGenerationChosen(["--max-old-space-size=512"], "--enable-source-maps"), false);
    // A server started with its own --max-semi-space-size grows as the user asked, up to that size.
    const chosen = await newSpaceAfterWork({}, ["--max-semi-space-size=4"]);
    assert.ok(chosen > ONE_SEMI_SPACE_PAIR, `with --max-semi-space-size=4: ${chosen} bytes of new space`);
  });
});
