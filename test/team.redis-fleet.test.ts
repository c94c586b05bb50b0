import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { raw, startHttp, type RunningHttp } from "./http-helpers.js";
import { servicesMissing, startRedis, type RunningService } from "./services-kit.js";
import { MODERN } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * A team fleet on one real redis-server: two built HTTP instances (real processes) sharing the
 * state key, and raw 2026-07-28 requests sent to either, as a round-robin balancer would.
 */

const TOKEN = "fleet-writer-token-0123456789abcdef";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "fleet-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

interface Answer {
  result?: { resultType?: string; inputRequests?: Record<string, unknown>; requestState?: string; content?: { type: string; text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

let rpcId = 0;
/** One 2026-07-28 tools/call over real HTTP to `server`: its JSON-RPC answer (JSON or the SSE event carrying it). */
async function modernCall(server: RunningHttp, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, envelope: Record<string, unknown> = ENVELOPE): Promise<Answer> {
  const id = ++rpcId;
  const response = await raw(server.url, {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...extra, _meta: envelope } }),
  });
  assert.equal(response.status, 200, response.body);
  const text = response.body;
  const json = text.trimStart().startsWith("{") ? text : (text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).find((l) => l.includes(`"id":${id}`)) ?? "{}");
  return JSON.parse(json) as Answer;
}

/** A client that cannot answer questions: a write runs on the model's `confirm: true`. */
const NO_ELICITATION = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {} };

const payloadOf = (answer: Answer): { ok?: boolean; audited?: boolean; workspace?: string; error?: { code: string; message: string; hint?: string } } => JSON.parse(answer.result?.content?.[0]?.text ?? "{}") as never;

describe("team fleet on Redis", { skip: servicesMissing(["redis"]) }, () => {
  let dir: string;
  let redis: RunningService & { url: string };
  let config: string;
  const startInstance = (name: string): Promise<RunningHttp> =>
    startHttp({ AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_INSTANCE_ID: name, AGENT_TOOLS_WARM_UP: "off" }, ["--config", config], 30_000);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-fleet-"));
    config = path.join(dir, "team.json");
    await writeFile(config, JSON.stringify({ team: { identities: [{ name: "writer", tokenSha256: hashToken(TOKEN), plugins: ["*"], write: true }] } }));
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("one user approval runs its write once in the whole fleet: the same answer replayed to either instance asks again", async () => {
    const [a, b] = await Promise.all([startInstance("gw-a"), startInstance("gw-b")]);
    try {
      const write = { toolName: "create_note", arguments: { title: "once", body: "b" } };
      const asked = await modernCall(a, "agent_tools_notes_call", write);
      assert.equal(asked.result?.resultType, "input_required", JSON.stringify(asked));
      const answer = { inputResponses: { confirm: { action: "accept", content: { confirm: true } } }, requestState: asked.result?.requestState };
      const ran = await modernCall(a, "agent_tools_notes_call", write, answer);
      assert.equal(payloadOf(ran).ok, true, JSON.stringify(ran));
      for (const [where, server] of [["the same instance", a], ["the other instance", b], ["the other instance again", b]] as const) {
        const replayed = await modernCall(server, "agent_tools_notes_call", write, answer);
        assert.equal(replayed.result?.resultType, "input_required", `${where}: the replay asks the user again, nothing ran: ${JSON.stringify(replayed)}`);
      }
      // A fresh approval still runs (on the instance that did not mint it).
      const again = await modernCall(b, "agent_tools_notes_call", write);
      const fresh = await modernCall(b, "agent_tools_notes_call", write, { ...answer, requestState: again.result?.requestState });
      assert.equal(payloadOf(fresh).ok, true, JSON.stringify(fresh));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("with Redis killed mid-session, requests answer within seconds (not after queued retries), and the idle sweep's failure is one clear line", async () => {
    const own = await startRedis();
    // Workspaces idle after 4 s: the sweep runs every second, so it meets the outage.
    const server = await startHttp({ AGENT_TOOLS_REDIS_URL: own.url, AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_HTTP_SESSION_IDLE_MS: "4000", AGENT_TOOLS_WARM_UP: "off" }, ["--config", config], 30_000);
    try {
      assert.equal(payloadOf(await modernCall(server, "agent_tools_exec", { command: "echo hi" })).ok, true);
      await own.stop();
      const timed = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; payload: ReturnType<typeof payloadOf> }> => {
        const started = Date.now();
        const payload = payloadOf(await modernCall(server, name, args, {}, NO_ELICITATION));
        return { ms: Date.now() - started, payload };
      };
      // A write: it runs, and its audit entry (a Redis stream) cannot be written, which it says.
      const write = await timed("agent_tools_notes_call", { toolName: "create_note", arguments: { title: "outage", body: "b" }, confirm: true });
      assert.ok(write.ms < 10_000, `the write answered after ${write.ms} ms`);
      assert.equal(write.payload.ok, true, JSON.stringify(write.payload));
      assert.equal(write.payload.audited, false, JSON.stringify(write.payload));
      // A workspace needs its record in Redis: unreachable, retry in a few seconds.
      const exec = await timed("agent_tools_exec", { command: "echo hi" });
      assert.ok(exec.ms < 10_000, `agent_tools_exec answered after ${exec.ms} ms`);
      assert.equal(exec.payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(exec.payload));
      assert.match(exec.payload.error?.message ?? "", /the gateway's shared state \(Redis at redis:\/\/127\.0\.0\.1:\d+\) is unreachable right now/);
      assert.match(exec.payload.error?.hint ?? "", /Retry in a few seconds/);
      await until(() => /workspaces: could not close idle workspaces \(the gateway's shared state .* is unreachable right now\); the next sweep tries again/.test(server.stderr()), "the failed sweep is logged");
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const stderr = server.stderr();
      assert.equal((stderr.match(/could not close idle workspaces/g) ?? []).length, 1, `one line per outage, not one per sweep:\n${stderr}`);
      assert.doesNotMatch(stderr, /unhandled rejection/i, stderr);
    } finally {
      await server.stop();
      await own.stop();
    }
  });
});
