import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { callJson } from "./helpers.js";
import { httpClient, raw, startHttp, type RunningHttp } from "./http-helpers.js";
import { freePort, haproxyConfig, servicesMissing, startHaproxy, startRedis, type RunningService } from "./services-kit.js";
import { callV2, connectHttpV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * Two instances on a real redis-server behind HAProxy with the README's config (checks of /readyz
 * every 1 s, down after 3 failures): what the balancer's readiness check makes of a rolling restart
 * and of a Redis outage, as clients arriving through it see them.
 */

const TOKEN = "readiness-writer-token-0123456789";
const bearer = { Authorization: `Bearer ${TOKEN}` };
const withBearer = (url: string | URL, init?: RequestInit): Promise<Response> => {
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${TOKEN}`);
  return fetch(url, { ...init, headers });
};

describe("team gateway behind HAProxy: readiness", { skip: servicesMissing(["redis", "haproxy"]) }, () => {
  let dir: string;
  let config: string;
  let redis: RunningService & { url: string };
  let haproxy: RunningService;
  let front: string;
  const instances = new Map<string, { http: RunningHttp; port: number }>();
  const startInstance = async (name: string, port: number): Promise<RunningHttp> => {
    // The audit log on (the Redis stream): a write during the outage must say it is not in it.
    const http = await startHttp({ AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_INSTANCE_ID: name, AGENT_TOOLS_HTTP_PORT: String(port), AGENT_TOOLS_WARM_UP: "off" }, ["--config", config]);
    instances.set(name, { http, port });
    return http;
  };
  /** Both instances in HAProxy's rotation: answers through the front came from each. */
  const bothServing = async (): Promise<void> => {
    const seen = new Set<string>();
    await until(async () => {
      const answer = await raw(`${front}`.replace(/\/mcp$/, "/healthz"), { method: "GET" });
      if (answer.status === 200) seen.add(String(answer.headers["agent-tools-instance"]));
      return seen.size === 2;
    }, "both instances to answer through HAProxy");
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-readiness-"));
    config = path.join(dir, "team.json");
    await writeFile(config, JSON.stringify({ team: { identities: [{ name: "writer", tokenSha256: hashToken(TOKEN), plugins: ["*"], write: true }] } }));
    redis = await startRedis();
    const [portA, portB, frontPort] = await Promise.all([freePort(), freePort(), freePort()]);
    await Promise.all([startInstance("gw-a", portA), startInstance("gw-b", portB)]);
    haproxy = await startHaproxy(haproxyConfig(frontPort, [{ name: "gw-a", port: portA }, { name: "gw-b", port: portB }]), frontPort);
    front = `http://127.0.0.1:${frontPort}/mcp`;
    await bothServing();
  });
  after(async () => {
    await Promise.all([...instances.values()].map((i) => i.http.stop()));
    await haproxy?.stop();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("a rolling restart: new clients arriving through HAProxy while one instance drains all get served, its call in flight finishes, and the drain is logged", async () => {
    const gwA = instances.get("gw-a")!;
    const { client: busy } = await httpClient(gwA.http.url, bearer);
    const slow = callJson(busy, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 12_000, text: "finished" } });
    // Time for the call to arrive on a loaded machine; HAProxy checks /readyz meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    gwA.http.child.kill("SIGTERM");
    const started = Date.now();
    const failures: string[] = [];
    let attempts = 0;
    // Past the drain's delay (5 s) and HAProxy's notice (3 checks, 1 s apart): new clients keep coming the whole time.
    while (Date.now() - started < 9000) {
      attempts += 1;
      try {
        const { client } = await httpClient(front, bearer);
        const read = await callJson(client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
        if (read.payload.ok !== true) failures.push(`legacy read: ${JSON.stringify(read.payload)}`);
        await client.close();
      } catch (error) {
        failures.push(`legacy: ${(error as Error).message}`);
      }
      try {
        const modern = await connectHttpV2(v2Client("pin"), front, withBearer);
        const exec = await callV2(modern, "agent_tools_exec", { command: "echo hi" });
        if (exec.payload.ok !== true) failures.push(`modern exec: ${JSON.stringify(exec.payload)}`);
        await modern.close();
      } catch (error) {
        failures.push(`modern: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${attempts} attempts failed`);
    assert.equal((await slow).payload.ok, true, "the call in flight finished");
    assert.equal((await gwA.http.exited).code, 0);
    await busy.close().catch(() => undefined);
    const log = gwA.http.stderr();
    assert.match(log, /info: draining \(SIGTERM\): \/readyz answers 503 from now; new sessions and workspaces are still taken for 5000 ms \(AGENT_TOOLS_DRAIN_DELAY_MS\) while the balancer notices, then refused; \d+ request\(s\) in flight and \d+ session\(s\) open; the calls then get up to 30000 ms \(AGENT_TOOLS_DRAIN_MS\) to finish, so the exit comes within 35000 ms/);
    assert.match(log, /info: draining \(SIGTERM\): new sessions and workspaces are refused from now/);
    assert.match(log, /info: exiting \(SIGTERM\) after a shutdown of \d+ ms/);
    // HAProxy kept sending new clients to gw-a until it noticed: they were served, not refused.
    const afterSignal = log.slice(log.indexOf("draining (SIGTERM)"));
    assert.match(afterSignal, /http POST \/mcp initialize session=\S+ status=200/, "gw-a took new sessions during the delay");
    assert.doesNotMatch(afterSignal, /status=503/);
    // The balancer's probes are debug lines, not the info request log.
    assert.doesNotMatch(log, /http GET \/readyz/);
    // Back in the fleet under its name (its clean stop removed its heartbeat: no wait).
    await startInstance("gw-a", gwA.port);
    await bothServing();
  });

  it("Redis down: no instance fails its readiness check, so clients get the gateway's answers (UPSTREAM_ERROR, audited: false), never the balancer's 503", async () => {
    const { client: legacy } = await httpClient(front, bearer);
    const modern = await connectHttpV2(v2Client("pin"), front, withBearer);
    try {
      await redis.stop();
      // Longer than HAProxy takes to call an instance down (3 failed checks, 1 s apart): the state holds meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      for (const [name, { port }] of instances) {
        const ready = await raw(`http://127.0.0.1:${port}/readyz`, { method: "GET" });
        assert.equal(ready.status, 200, `${name}: ${ready.body}`);
        assert.deepEqual(JSON.parse(ready.body), { status: "ready", instance: name, sharedState: "unreachable" });
      }
      for (let i = 0; i < 4; i++) {
        const exec = await callV2(modern, "agent_tools_exec", { command: "echo hi" });
        assert.equal((exec.payload.error as { code?: string } | undefined)?.code, "UPSTREAM_ERROR", JSON.stringify(exec.payload));
        const read = await callJson(legacy, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
        assert.equal(read.payload.ok, true, JSON.stringify(read.payload));
        const write = await callJson(legacy, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: `outage ${i}`, body: "b" }, confirm: true });
        assert.equal(write.payload.ok, true, JSON.stringify(write.payload));
        assert.equal(write.payload.audited, false, JSON.stringify(write.payload));
      }
      const metaThrough = await raw(front.replace(/\/mcp$/, "/readyz"), { method: "GET" });
      assert.equal(metaThrough.status, 200, "HAProxy still has an instance to send to");
    } finally {
      await Promise.allSettled([legacy.close(), modern.close()]);
    }
  });
});
