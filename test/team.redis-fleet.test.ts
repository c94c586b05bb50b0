import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
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

describe("team fleet when Redis restarts without its data", { skip: servicesMissing(["redis"]) }, () => {
  let dir: string;
  let config: string;
  const KEY = "agent-tools:kv:state-key";
  const write = { toolName: "create_note", arguments: { title: "after", body: "b" } };
  const accept = (asked: Answer): Record<string, unknown> => ({ inputResponses: { confirm: { action: "accept", content: { confirm: true } } }, requestState: asked.result?.requestState });
  const startOn = (redis: { url: string }, name: string): Promise<RunningHttp> =>
    startHttp({ AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_INSTANCE_ID: name, AGENT_TOOLS_WARM_UP: "off" }, ["--config", config], 30_000);
  /** The value of `key` in the Redis at `url`, read on a connection of its own. */
  const read = async (url: string, key: string): Promise<string | null> => {
    const client = new Redis(url);
    try {
      return await client.get(key);
    } finally {
      client.disconnect();
    }
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-fleet-restart-"));
    config = path.join(dir, "team.json");
    // Heartbeats every 500 ms: the key is checked at that pace too.
    await writeFile(config, JSON.stringify({ team: { heartbeatTtlMs: 1500, identities: [{ name: "writer", tokenSha256: hashToken(TOKEN), plugins: ["*"], write: true }] } }));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a running instance puts its key back, so one started afterwards verifies its handles, and writes its workspace records back, so its shells stay reachable", async () => {
    const first = await startRedis();
    const a = await startOn(first, "gw-a");
    let second: (RunningService & { url: string }) | undefined;
    let c: RunningHttp | undefined;
    try {
      const key = await read(first.url, KEY);
      assert.match(key ?? "", /^[0-9a-f]{64}$/);
      const before = payloadOf(await modernCall(a, "agent_tools_exec", { command: "echo before" })).workspace ?? "";
      await first.stop();
      second = await startRedis(first.port);
      await until(async () => (await read(second!.url, KEY)) === key, "gw-a to put its key back in the empty Redis");
      await until(() => /'gw-a': the fleet's signing key in Redis \(kv:state-key\) was missing — Redis lost its data .*Run Redis with appendonly yes, or set AGENT_TOOLS_STATE_KEY/.test(a.stderr()), "gw-a to say the key was missing");
      await until(() => /'gw-a': Redis lost the fleet's shared state .*wrote back its heartbeat and the records of the workspaces and running jobs it holds/.test(a.stderr()), "gw-a to write its records back");
      c = await startOn(second, "gw-c");
      // The same key: a workspace opened on gw-a after the restart is gw-a's, and gw-c says so (not "not issued to this caller").
      const after = payloadOf(await modernCall(a, "agent_tools_exec", { command: "echo after" })).workspace ?? "";
      const misrouted = payloadOf(await modernCall(c, "agent_tools_exec", { command: "true", workspace: after }));
      assert.equal(misrouted.error?.code, "WORKSPACE_UNAVAILABLE", JSON.stringify(misrouted));
      // The workspace opened before: gw-a wrote its record back, so gw-c knows it is gw-a's (retry there), and gw-a still runs it.
      const onC = payloadOf(await modernCall(c, "agent_tools_exec", { command: "true", workspace: before }));
      assert.equal(onC.error?.code, "WORKSPACE_UNAVAILABLE", JSON.stringify(onC));
      const onA = payloadOf(await modernCall(a, "agent_tools_exec", { command: "true", workspace: before }));
      assert.equal(onA.ok, true, JSON.stringify(onA));
    } finally {
      await Promise.all([a.stop(), c?.stop()]);
      await Promise.all([first.stop(), second?.stop()]);
    }
  });

  it("after FLUSHALL, a request for a live instance's workspace through another instance within the first second is told to retry, never that it is lost", async () => {
    const own = await startRedis();
    // The default heartbeat (6 s TTL, a beat every 2 s): the window a flush opens is as wide as in production.
    const defaults = path.join(dir, "team-default-heartbeat.json");
    await writeFile(defaults, JSON.stringify({ team: { identities: [{ name: "writer", tokenSha256: hashToken(TOKEN), plugins: ["*"], write: true }] } }));
    const startDefault = (name: string): Promise<RunningHttp> =>
      startHttp({ AGENT_TOOLS_REDIS_URL: own.url, AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_INSTANCE_ID: name, AGENT_TOOLS_WARM_UP: "off" }, ["--config", defaults], 30_000);
    const [a, b] = await Promise.all([startDefault("gw-a"), startDefault("gw-b")]);
    const flusher = new Redis(own.url);
    try {
      const opened = payloadOf(await modernCall(a, "agent_tools_exec", { command: "echo kept > kept.txt" }));
      assert.equal(opened.ok, true, JSON.stringify(opened));
      const handle = opened.workspace ?? "";
      await flusher.flushall();
      // At once: gw-a has not beaten since, so its heartbeat and the workspace's record are missing.
      const onB = payloadOf(await modernCall(b, "agent_tools_exec", { command: "true", workspace: handle }));
      assert.equal(onB.error?.code, "WORKSPACE_UNAVAILABLE", JSON.stringify(onB));
      assert.match(onB.error?.message ?? "", /held by gateway instance 'gw-a', which is running/);
      // The holder still has the files.
      const onA = payloadOf(await modernCall(a, "agent_tools_exec", { command: "cat kept.txt", workspace: handle }));
      assert.equal(onA.ok, true, JSON.stringify(onA));
      assert.match(JSON.stringify(onA), /kept/);
      // The same request once more on gw-b: still "retry on gw-a" (nothing was deleted by the first).
      const again = payloadOf(await modernCall(b, "agent_tools_exec", { command: "true", workspace: handle }));
      assert.equal(again.error?.code, "WORKSPACE_UNAVAILABLE", JSON.stringify(again));
    } finally {
      flusher.disconnect();
      await Promise.all([a.stop(), b.stop()]);
      await own.stop();
    }
  });

  it("an instance started first on the empty Redis made a new key: the running one adopts it, warns once, and still accepts what it signed before", async () => {
    const first = await startRedis();
    const a = await startOn(first, "gw-a");
    let second: (RunningService & { url: string }) | undefined;
    let c: RunningHttp | undefined;
    try {
      const before = payloadOf(await modernCall(a, "agent_tools_exec", { command: "echo before" })).workspace ?? "";
      const askedBefore = await modernCall(a, "agent_tools_notes_call", write);
      assert.equal(askedBefore.result?.resultType, "input_required", JSON.stringify(askedBefore));
      await first.stop();
      second = await startRedis(first.port);
      // What a new instance does on an empty Redis, whichever of it and gw-a's check comes first.
      const fresh = randomBytes(32).toString("hex");
      const setter = new Redis(second.url);
      await setter.set(KEY, fresh).finally(() => setter.disconnect());
      c = await startOn(second, "gw-c");
      await until(() => /'gw-a': the fleet's signing key in Redis \(kv:state-key\) is not the one this instance signed with — two keys were in the fleet/.test(a.stderr()), "gw-a to adopt the stored key");
      // One key now: gw-a's new workspace verifies on gw-c (held by gw-a: UNAVAILABLE, not INVALID), and its new confirmation runs on gw-c.
      const after = payloadOf(await modernCall(a, "agent_tools_exec", { command: "echo after" })).workspace ?? "";
      const misrouted = payloadOf(await modernCall(c, "agent_tools_exec", { command: "true", workspace: after }));
      assert.equal(misrouted.error?.code, "WORKSPACE_UNAVAILABLE", JSON.stringify(misrouted));
      const asked = await modernCall(a, "agent_tools_notes_call", write);
      assert.equal(payloadOf(await modernCall(c, "agent_tools_notes_call", write, accept(asked))).ok, true);
      // What gw-a signed with its earlier key still verifies on gw-a: the confirmation runs.
      const ran = await modernCall(a, "agent_tools_notes_call", write, accept(askedBefore));
      assert.equal(payloadOf(ran).ok, true, JSON.stringify(ran));
      // gw-c never had that key: the handle's refusal names the lost shared state as a possible cause.
      const foreign = payloadOf(await modernCall(c, "agent_tools_exec", { command: "true", workspace: before }));
      assert.equal(foreign.error?.code, "WORKSPACE_INVALID", JSON.stringify(foreign));
      assert.match(foreign.error?.message ?? "", /or was signed before the gateway's shared state was lost \(Redis restarted without its data, and the fleet signs with a new key since\)/);
      // Said once, not at every check.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal((a.stderr().match(/two keys were in the fleet/g) ?? []).length, 1, a.stderr());
      assert.equal(await read(second.url, KEY), fresh, "nobody replaced the stored key");
    } finally {
      await Promise.all([a.stop(), c?.stop()]);
      await Promise.all([first.stop(), second?.stop()]);
    }
  });
});

/** CPU seconds (user + system) `pid` has used, from /proc/<pid>/stat (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe("Redis away and back", { skip: servicesMissing(["redis"]) }, () => {
  let dir: string;
  let config: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-redis-away-"));
    config = path.join(dir, "team.json");
    await writeFile(config, JSON.stringify({ team: { identities: [{ name: "writer", tokenSha256: hashToken(TOKEN), plugins: ["*"], write: true }] } }));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("`agent-tools audit --follow` waits for Redis without spinning, says so once, and prints the entries written once it is back", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
    const first = await startRedis();
    let second: (RunningService & { url: string }) | undefined;
    const cli = fileURLToPath(new URL("../dist/bin/agent-tools.js", import.meta.url));
    const follower = spawn(process.execPath, [cli, "audit", "--follow"], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_CACHE_HOME: path.join(dir, "cache"), AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "no-plugins"), AGENT_TOOLS_REDIS_URL: first.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    follower.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    follower.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const append = async (url: string, id: string): Promise<void> => {
      const client = new Redis(url);
      try {
        await client.xadd("agent-tools:audit", "*", "entry", JSON.stringify({ id, at: new Date().toISOString(), identity: "x", plugin: "p", tool: "t", outcome: "ok", instanceId: "i" }));
      } finally {
        client.disconnect();
      }
    };
    try {
      // Following: an entry written now is printed.
      await until(async () => {
        await append(first.url, "before-outage");
        return out.includes("before-outage");
      }, "the follower to print an entry", 30_000, 500);
      await first.stop();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const start = cpuSeconds(follower.pid!);
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const used = cpuSeconds(follower.pid!) - start;
      assert.ok(used < 0.5, `the follower used ${used.toFixed(2)} CPU-s in 4 s while Redis was away`);
      assert.equal(follower.exitCode, null, `the follower still runs: ${err}`);
      assert.equal((err.match(/\(audit follower\): unreachable/g) ?? []).length, 1, `the outage said once:\n${err}`);
      second = await startRedis(first.port);
      // Written at once on the restarted (empty) Redis: the follower, reconnecting, still reads it.
      await append(second.url, "after-outage");
      await until(() => out.includes("after-outage"), `the entry written after the restart to be printed (stderr: ${err})`, 30_000);
      assert.doesNotMatch(err, /reading the audit stream failed/, err);
    } finally {
      follower.kill("SIGKILL");
      await Promise.all([first.stop(), second?.stop()]);
    }
  });

  it("an accept that meets Redis down is not used up: retried once Redis is back, it runs the write once", async () => {
    const first = await startRedis();
    let second: (RunningService & { url: string }) | undefined;
    const server = await startHttp({ AGENT_TOOLS_REDIS_URL: first.url, AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_INSTANCE_ID: "gw-a", AGENT_TOOLS_WARM_UP: "off" }, ["--config", config], 30_000);
    try {
      const write = { toolName: "create_note", arguments: { title: "across-outage", body: "b" } };
      const asked = await modernCall(server, "agent_tools_notes_call", write);
      assert.equal(asked.result?.resultType, "input_required", JSON.stringify(asked));
      const answer = { inputResponses: { confirm: { action: "accept", content: { confirm: true } } }, requestState: asked.result?.requestState };
      await first.stop();
      const failed = payloadOf(await modernCall(server, "agent_tools_notes_call", write, answer));
      assert.equal(failed.ok, false, JSON.stringify(failed));
      assert.match(failed.error?.message ?? "", /the gateway's shared state \(Redis at redis:\/\/127\.0\.0\.1:\d+\) is unreachable right now/, JSON.stringify(failed));
      assert.match(failed.error?.hint ?? "", /Retry in a few seconds/, JSON.stringify(failed));
      second = await startRedis(first.port);
      // Back when a call that needs the shared state (a workspace record) answers again.
      await until(async () => payloadOf(await modernCall(server, "agent_tools_exec", { command: "true" })).ok === true, `the server to reach Redis again (stderr: ${server.stderr()})`, 30_000, 250);
      // The same accept, retried: it runs (the failed claim did not spend it) ...
      const ran = await modernCall(server, "agent_tools_notes_call", write, answer);
      assert.equal(payloadOf(ran).ok, true, JSON.stringify(ran));
      // ... once: replayed again, it asks the user again.
      const replayed = await modernCall(server, "agent_tools_notes_call", write, answer);
      assert.equal(replayed.result?.resultType, "input_required", JSON.stringify(replayed));
      const notes = payloadOf(await modernCall(server, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })) as { result?: unknown };
      assert.equal((JSON.stringify(notes).match(/across-outage/g) ?? []).length, 1, `one note written: ${JSON.stringify(notes)}`);
    } finally {
      await server.stop();
      await Promise.all([first.stop(), second?.stop()]);
    }
  });
});
