import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMcpHandler, Server, type ServerContext } from "@modelcontextprotocol/server";
import { ServerPool } from "../src/facade/server-pool.js";

/**
 * The modern HTTP leg reuses idle facade Servers (src/facade/server-pool.ts). Driven through the
 * SDK's own `createMcpHandler` fetch with real requests: an instance serves one exchange at a
 * time, goes back to the pool only when its exchange is closed and its handlers have settled,
 * and nothing a finished handler still sends can reach the next exchange on the same instance,
 * even when both requests carry the same JSON-RPC id.
 */

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "pool-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Gate {
  promise: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A pool of small Servers whose one tool runs `behaviour`; counts how many instances it built. */
function pooledHandler(behaviour: (args: Record<string, unknown>, ctx: ServerContext) => Promise<string>) {
  let built = 0;
  const pool = new ServerPool((around) => {
    built += 1;
    const server = new Server({ name: "pool-test", version: "0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/call", (request, ctx) =>
      around(ctx, async (c) => ({ content: [{ type: "text" as const, text: await behaviour(request.params.arguments ?? {}, c) }] })),
    );
    return server;
  });
  const handler = createMcpHandler(() => pool.acquire(), { legacy: "reject" });
  return { pool, handler, built: () => built };
}

function post(handler: ReturnType<typeof createMcpHandler>, args: Record<string, unknown>, options: { id?: number; progressToken?: string; signal?: AbortSignal } = {}): Promise<Response> {
  const meta = { ...ENVELOPE, ...(options.progressToken ? { progressToken: options.progressToken } : {}) };
  return handler.fetch(
    new Request("http://in-process.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "t" },
      body: JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 1, method: "tools/call", params: { name: "t", arguments: args, _meta: meta } }),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
}

/** The JSON-RPC messages of a JSON or SSE answer. */
async function messages(response: Response): Promise<Array<{ method?: string; params?: Record<string, unknown>; result?: { content?: Array<{ text: string }> } }>> {
  const text = await response.text();
  if (text.trimStart().startsWith("{")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("modern HTTP leg: pooled facade Servers", () => {
  it("sequential requests reuse one instance; concurrent ones get one each, and all go back", async () => {
    const gates: Gate[] = [];
    const { pool, handler, built } = pooledHandler(async (args) => {
      if (args.wait) {
        const g = gate();
        gates.push(g);
        await g.promise;
      }
      return `ok ${String(args.n)}`;
    });
    for (let n = 0; n < 5; n++) {
      const [answer] = await messages(await post(handler, { n }, { id: n }));
      assert.equal(answer?.result?.content?.[0]?.text, `ok ${n}`);
      await settle();
    }
    assert.equal(built(), 1, "one instance served five requests in turn");

    const running = [0, 1, 2].map((n) => post(handler, { n, wait: true }, { id: 7 }));
    while (gates.length < 3) await settle();
    assert.equal(built(), 3, "three requests in flight at once use three instances");
    for (const g of gates) g.open();
    const answers = await Promise.all(running.map(async (r) => (await messages(await r))[0]?.result?.content?.[0]?.text));
    assert.deepEqual(answers.sort(), ["ok 0", "ok 1", "ok 2"]);
    await settle();
    assert.equal(pool.idleCount, 3);
    await handler.close();
  });

  it("a send from a finished handler never reaches the next exchange of the same instance (same request id)", async () => {
    let kept: ServerContext | undefined;
    const second = gate();
    const { handler, built } = pooledHandler(async (args, ctx) => {
      if (args.keep) {
        kept = ctx;
        return "first";
      }
      // Say something of its own (the answer becomes an SSE stream), then wait while the old context tries to speak.
      await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: "second", progress: 1 } });
      await second.promise;
      return "second";
    });
    const [first] = await messages(await post(handler, { keep: true }, { id: 1, progressToken: "first" }));
    assert.equal(first?.result?.content?.[0]?.text, "first");
    await settle();

    const running = post(handler, {}, { id: 1, progressToken: "second" });
    await settle();
    assert.ok(kept);
    await kept.mcpReq.notify({ method: "notifications/progress", params: { progressToken: "first", progress: 99 } });
    await kept.mcpReq.log("info", "late log from the first request");
    await assert.rejects(kept.mcpReq.send({ method: "ping" }), /request has ended/);
    second.open();
    const got = await messages(await running);
    assert.equal(built(), 1, "the second request ran on the first one's instance");
    const progress = got.filter((m) => m.method === "notifications/progress").map((m) => m.params?.progressToken);
    assert.deepEqual(progress, ["second"], JSON.stringify(got));
    assert.ok(!JSON.stringify(got).includes("late log"), JSON.stringify(got));
    assert.equal(got.at(-1)?.result?.content?.[0]?.text, "second");
    await handler.close();
  });

  it("an instance whose client went away is not reused until its handler has settled", async () => {
    const first = gate();
    const { pool, handler, built } = pooledHandler(async (args) => {
      if (args.hold) await first.promise;
      return "done";
    });
    const client = new AbortController();
    const abandoned = post(handler, { hold: true }, { signal: client.signal });
    await settle();
    client.abort();
    await abandoned.then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
    await settle();
    const [answer] = await messages(await post(handler, {}));
    assert.equal(answer?.result?.content?.[0]?.text, "done");
    assert.equal(built(), 2, "the abandoned exchange's instance was still running its handler");
    first.open();
    await settle();
    await settle();
    assert.equal(pool.idleCount, 2, "both instances are idle once the held handler settled");
    await handler.close();
  });
});
