import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client, InMemoryTransport as ClientMemoryTransport } from "@modelcontextprotocol/client";
import { InMemoryTransport, Server } from "@modelcontextprotocol/server";
import { createFacadeServer } from "../dist/facade/server.js";
import { startTracing } from "../dist/gateway/tracing.js";
import { silentLogger } from "../dist/log.js";
import { createRuntime } from "../dist/runtime/runtime.js";

/**
 * The runtime's own CPU per call, in one process (no pipes, no downstream process, so the figure
 * does not swing with the machine's load the way wall time across processes does):
 *   - `runtime.call` on an in-code adapter that answers at once (the pipeline: repair, loop check,
 *     resolve, validate, gate, invoke, shape, frame);
 *   - the same call through the facade server and an SDK v2 client over InMemoryTransport;
 *   - a bare SDK v2 Server answering the same tools/call (the SDK's share, the floor);
 *   - `runtime.call` to a plugin whose adapter is the real McpAdapter over an in-memory link to
 *     that bare server, with the catalog cache on (what an MCP call costs between the pipeline and
 *     the SDK client: McpConnection, the use watch of the cache upkeep), against the bare client;
 *   - `runtime.call` with OpenTelemetry on (10 spans a call, OTLP/HTTP to a local sink that
 *     accepts and drops them): what tracing costs when configured (off, it is the first row).
 *   node --import tsx bench/call-cost.ts [--calls 20000] [--rounds 5]
 */

const { values: opts } = parseArgs({ options: { calls: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } } });
const CALLS = Number(opts.calls);
const ROUNDS = Number(opts.rounds);
const ECHO = { content: [{ type: "text", text: "Echo: hello" }] };

/** CPU µs per call of `op`, over CALLS calls (after a warm-up), min and median of ROUNDS. */
async function cpuPerCall(op: () => Promise<unknown>): Promise<{ min: number; median: number }> {
  for (let i = 0; i < 2000; i++) await op();
  const values: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await op();
    const used = process.cpuUsage(start);
    values.push((used.user + used.system) / CALLS);
  }
  values.sort((a, b) => a - b);
  return { min: values[0]!, median: values[Math.floor(values.length / 2)]! };
}

async function linked(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "call-cost", version: "0.0.0" });
  await client.connect(clientSide as unknown as InstanceType<typeof ClientMemoryTransport>);
  return client;
}

const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-call-cost-"));
try {
  const plugin = path.join(dir, "agent-tools-plugin-ev");
  mkdirSync(plugin);
  writeFileSync(path.join(plugin, "plugin.json"), JSON.stringify({ name: "ev", prefix: "ev", description: "Echo", adapter: "./adapter.mjs", adapterExport: "Echo", requireConfirm: false }));
  writeFileSync(
    path.join(plugin, "adapter.mjs"),
    `const ECHO = ${JSON.stringify(ECHO)};
     export class Echo {
       async listTools() { return { tools: [{ name: "echo", description: "Echo the message", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }] }; }
       async call() { return { content: [{ type: "text", text: ECHO.content[0].text }] }; }
     }`,
  );
  const runtime = await createRuntime({ pluginDirs: [plugin], env: { AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_AUDIT: "off" }, log: silentLogger });
  const session = runtime.createSession("cost");
  const args = { toolName: "echo", arguments: { message: "hello" } };
  const pipeline = await cpuPerCall(() => runtime.call(session, "ev", args));

  const facadeClient = await linked(createFacadeServer({ runtime, session }));
  const facade = await cpuPerCall(() => facadeClient.callTool({ name: "agent_tools_ev_call", arguments: args }));

  const bare = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } });
  bare.setRequestHandler("tools/call", async () => ({ content: [{ type: "text", text: ECHO.content[0]!.text }] }));
  const bareClient = await linked(bare);
  const sdk = await cpuPerCall(() => bareClient.callTool({ name: "echo", arguments: { message: "hello" } }));

  // The MCP adapter kind over an in-memory link to a bare server: McpConnection's own per-call work.
  const mcpPlugin = path.join(dir, "agent-tools-plugin-em");
  mkdirSync(mcpPlugin);
  writeFileSync(path.join(mcpPlugin, "plugin.json"), JSON.stringify({ name: "em", prefix: "em", description: "Echo over MCP", adapter: "./adapter.mjs", adapterExport: "EchoOverMcp", requireConfirm: false }));
  const dist = (file: string) => JSON.stringify(new URL(`../dist/${file}`, import.meta.url).href);
  writeFileSync(
    path.join(mcpPlugin, "adapter.mjs"),
    `import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
     import { Server } from "@modelcontextprotocol/server";
     import { McpAdapter } from ${dist("adapters/mcp/adapter.js")};
     import { createRedactor } from ${dist("adapters/shared/redact.js")};
     import { silentLogger } from ${dist("log.js")};
     const open = async (makeClient) => {
       const server = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } });
       server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } } } }] }));
       server.setRequestHandler("tools/call", async () => ({ content: [{ type: "text", text: "Echo: hello" }] }));
       const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
       await server.connect(serverSide);
       const client = makeClient();
       await client.connect(clientSide);
       return { client, opened: { kind: "memory", close: () => client.close() } };
     };
     export class EchoOverMcp extends McpAdapter {
       constructor() { super({ name: "em", open, redactor: createRedactor([]), log: silentLogger }); }
     }`,
  );
  // node_modules for the fixture's bare imports: the plugin folder sits in the temp dir.
  symlinkSync(new URL("../node_modules", import.meta.url).pathname, path.join(dir, "node_modules"));
  const cacheDir = path.join(dir, "cache");
  const mcpRuntime = await createRuntime({ pluginDirs: [mcpPlugin], env: { AGENT_TOOLS_CACHE_DIR: cacheDir, AGENT_TOOLS_AUDIT: "off" }, log: silentLogger });
  const mcpSession = mcpRuntime.createSession("cost-mcp");
  const mcp = await cpuPerCall(() => mcpRuntime.call(mcpSession, "em", args));
  // Tracing on: the exporter posts to a loopback sink in this process (its CPU is counted too).
  const sink = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const tracing = await startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}` }, instanceId: "bench", version: "0", log: silentLogger });
  const tracedRuntime = await createRuntime({ pluginDirs: [plugin], env: { AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_AUDIT: "off" }, log: silentLogger, ...(tracing ? { tracing } : {}) });
  const tracedSession = tracedRuntime.createSession("cost-traced");
  const traced = await cpuPerCall(() => tracedRuntime.call(tracedSession, "ev", args));
  await tracedRuntime.close();
  await tracing?.shutdown();
  sink.close();

  const fmt = (s: { min: number; median: number }) => `${s.min.toFixed(1)} / ${s.median.toFixed(1)} µs`;
  console.log(`CPU per call, min / median of ${ROUNDS} × ${CALLS} (load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  console.log(`runtime.call (pipeline alone)                ${fmt(pipeline)}`);
  console.log(`facade + SDK client, in memory               ${fmt(facade)}`);
  console.log(`bare SDK server + SDK client, in memory      ${fmt(sdk)}`);
  console.log(`facade over the bare server: +${(facade.median - sdk.median).toFixed(1)} µs (${(facade.median / sdk.median).toFixed(2)}×)`);
  console.log(`runtime.call → McpAdapter → bare server      ${fmt(mcp)}`);
  console.log(`McpAdapter path over the bare client: +${(mcp.median - sdk.median).toFixed(1)} µs (${(mcp.median / sdk.median).toFixed(2)}×)`);
  console.log(`runtime.call, OpenTelemetry on (OTLP sink)   ${fmt(traced)}  (+${(traced.median - pipeline.median).toFixed(1)} µs over tracing off)`);
  await facadeClient.close();
  await bareClient.close();
  await runtime.close();
  await mcpRuntime.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
