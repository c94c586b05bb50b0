import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as ModernSdkClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Redis } from "ioredis";
import { hashToken } from "../src/gateway/identities.js";
import { baseEnv, callJson, PLUGINS, runCli } from "./helpers.js";
import { HTTP_BIN, httpClient, startHttp, type RunningHttp } from "./http-helpers.js";
import { freePort, servicesMissing, startRedis, type RunningService } from "./services-kit.js";
import { until } from "./wait.js";

/**
 * What a team gateway refuses at start (identities sharing a token or a name, a token pasted where
 * its hash belongs, an audit log it cannot write), and how it answers when its audit log or its
 * Redis fails at run time: the built HTTP server as a real process, a real redis-server.
 */

const TOKEN_A = "token-a-0123456789abcdef0123456789";
const TOKEN_B = "token-b-0123456789abcdef0123456789";
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-team-start-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configWith(identities: unknown[]): Promise<string> {
  const file = path.join(dir, `team.${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ team: { identities } }));
  return file;
}

/** The HTTP server started with `config`: it must refuse to start; its stderr. */
async function refusedStart(config: string, env: Record<string, string> = {}): Promise<string> {
  const run = await runCli(["--config", config], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_HTTP_PORT: "0", AGENT_TOOLS_AUDIT: "off", ...env }), HTTP_BIN);
  assert.notEqual(run.code, 0, `the start was refused:\n${run.stderr}`);
  assert.equal(run.stdout, "");
  return run.stderr;
}

describe("team gateway: identities checked at start", () => {
  it("two identities with one token are refused, naming both entries and never the hash", async () => {
    const hash = hashToken(TOKEN_A);
    const stderr = await refusedStart(
      await configWith([
        { name: "readonly-ci", tokenSha256: hash, plugins: ["notes"] },
        { name: "admin", tokenSha256: hash.toUpperCase(), plugins: ["*"], write: true },
      ]),
    );
    assert.match(stderr, /team\.identities\[1\] \('admin'\) has the same tokenSha256 as team\.identities\[0\] \('readonly-ci'\)/);
    assert.match(stderr, /agent-tools hash-token/);
    assert.ok(!stderr.toLowerCase().includes(hash), "the hash is not printed");
  });

  it("two identities with one name are refused, naming both entries", async () => {
    const stderr = await refusedStart(
      await configWith([
        { name: "team", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true },
        { name: "team", tokenSha256: hashToken(TOKEN_B), plugins: ["notes"] },
      ]),
    );
    assert.match(stderr, /team\.identities\[1\] \('team'\) has the same name as team\.identities\[0\] \('team'\)/);
  });

  it("'local', the name the audit log gives writes made without a team identity, is refused as an identity's name", async () => {
    const stderr = await refusedStart(await configWith([{ name: "local", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true }]));
    assert.match(stderr, /team\.identities\[0\] \('local'\) takes the name 'local', which the audit log gives the writes made without a team identity \(AGENT_TOOLS_HTTP_TOKEN, stdio\); give it another name/);
  });

  it("a raw token pasted into tokenSha256 is not echoed, and the error says how to make the hash", async () => {
    const pasted = "tok-alice-0123456789abcdef";
    const stderr = await refusedStart(await configWith([{ name: "alice", tokenSha256: pasted }]));
    assert.match(stderr, /team\.identities\[0\]\.tokenSha256' must be the token's SHA-256 as 64 hex characters, not the token itself: `agent-tools hash-token TOKEN` prints it/);
    assert.ok(!stderr.includes(pasted), `the token is not in:\n${stderr}`);
  });
});

describe("team gateway: the audit log", () => {
  const identities = [{ name: "writer", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true }];

  it("an audit file that cannot be written stops the start, naming AGENT_TOOLS_AUDIT_FILE", async () => {
    const blocker = path.join(dir, "a-regular-file");
    await writeFile(blocker, "");
    const config = await configWith(identities);
    const under = await refusedStart(config, { AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: path.join(blocker, "audit.jsonl") });
    assert.match(under, /the audit log .*a-regular-file\/audit\.jsonl \(from AGENT_TOOLS_AUDIT_FILE\) cannot be created: .*a-regular-file is not a folder; set AGENT_TOOLS_AUDIT_FILE to a file/);
    const device = await refusedStart(config, { AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: "/dev/full" });
    assert.match(device, /the audit log \/dev\/full \(from AGENT_TOOLS_AUDIT_FILE\) is not a regular file/);
  });

  it("a write whose entry cannot be recorded answers audited: false with a warning", async () => {
    const folder = path.join(dir, "audit-folder");
    await mkdir(folder);
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: path.join(folder, "audit.jsonl") }, ["--config", await configWith(identities)]);
    const { client } = await httpClient(server.url, bearer(TOKEN_A));
    try {
      const audited = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "kept", body: "b" }, confirm: true });
      assert.equal(audited.payload.ok, true, JSON.stringify(audited.payload));
      assert.equal(audited.payload.audited, undefined);
      // The folder becomes a regular file: the next entry cannot be written.
      await rm(folder, { recursive: true });
      await writeFile(folder, "");
      const unaudited = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "lost", body: "b" }, confirm: true });
      assert.equal(unaudited.payload.ok, true);
      assert.equal(unaudited.payload.audited, false);
      assert.match(String((unaudited.payload.warnings as string[] | undefined)?.join("\n")), /this change was made but is not in the gateway's audit log/);
      assert.match(server.stderr(), /audit: could not record/);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("team gateway: Redis down mid-run", { skip: servicesMissing(["redis"]) }, () => {
  let redis: RunningService & { url: string };
  let server: RunningHttp;
  before(async () => {
    redis = await startRedis();
    server = await startHttp({ AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_AUDIT: "off" }, ["--config", await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true }])]);
  });
  after(async () => {
    await server?.stop();
    await redis?.stop();
  });

  it("agent_tools_exec answers that the shared state is unreachable, and the outage is logged once", async () => {
    const client = new ModernSdkClient({ name: "redis-down", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const authorized: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("Authorization", `Bearer ${TOKEN_A}`);
      return fetch(input, { ...init, headers });
    };
    await client.connect(new ModernTransport(new URL(server.url), { fetch: authorized }));
    try {
      const exec = async (): Promise<{ isError: boolean; payload: Record<string, unknown> }> => {
        const result = (await client.callTool({ name: "agent_tools_exec", arguments: { command: "echo hi" } }, { timeout: 60_000 })) as CallToolResult;
        const text = result.content.find((c) => c.type === "text");
        return { isError: result.isError === true, payload: JSON.parse(text && "text" in text ? text.text : "{}") as Record<string, unknown> };
      };
      assert.equal((await exec()).isError, false);
      await redis.stop();
      const down = await exec();
      assert.equal(down.isError, true);
      const error = down.payload.error as { code: string; message: string; hint: string };
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, /the gateway's shared state \(Redis at redis:\/\/127\.0\.0\.1:\d+\) is unreachable right now/);
      assert.match(error.hint, /Retry in a few seconds/);
      assert.doesNotMatch(error.message, /maxRetriesPerRequest/);
      // Reconnect attempts go on meanwhile: each connection says the outage once, and no unhandled error event.
      await until(() => (server.stderr().match(/\(pub\/sub\): unreachable/g) ?? []).length >= 1, "the pub/sub connection's outage is logged");
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const stderr = server.stderr();
      assert.doesNotMatch(stderr, /Unhandled error event/);
      assert.equal((stderr.match(/redis redis:\/\/127\.0\.0\.1:\d+: unreachable/g) ?? []).length, 1, stderr);
      assert.equal((stderr.match(/\(pub\/sub\): unreachable/g) ?? []).length, 1, stderr);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

describe("team gateway: the Redis URL's database", { skip: servicesMissing(["redis"]) }, () => {
  let redis: RunningService & { url: string };
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  it("a database Redis does not have stops the start, audit and validate, naming the setting, never database 0", async () => {
    const url = `${redis.url}/99`;
    const said = /AGENT_TOOLS_REDIS_URL names database 99, which Redis at redis:\/\/127\.0\.0\.1:\d+\/99 refused \(ERR DB index is out of range\); name one it has/;
    const config = await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A) }]);
    const stderr = await refusedStart(config, { AGENT_TOOLS_REDIS_URL: url, AGENT_TOOLS_INSTANCE_ID: "gw-db99" });
    assert.match(stderr, said);
    assert.doesNotMatch(stderr, /\n\s+at /, "one line, no stack");
    const audit = await runCli(["audit", "--limit", "1"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: url }));
    assert.equal(audit.code, 1, audit.stderr);
    assert.equal(audit.stdout, "");
    assert.match(audit.stderr, said);
    const validate = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: url }));
    assert.equal(validate.code, 1, validate.stderr);
    assert.match(JSON.stringify((JSON.parse(validate.stdout) as { problems: string[] }).problems), said);
    // Nothing of the refused instance landed in database 0 (its heartbeat would be there).
    const raw = new Redis(redis.url);
    try {
      assert.deepEqual(await raw.keys("*"), []);
    } finally {
      raw.disconnect();
    }
  });

  it("a database that is not a number is named with the setting, in one line with no stack; validate lists it", async () => {
    const url = `${redis.url}/abc`;
    const said = /AGENT_TOOLS_REDIS_URL is not a usable Redis URL: its database \(after the host's '\/'\) is not a whole number, 0 or more \(got 'redis:\/\/127\.0\.0\.1:\d+\/abc'\)/;
    const stderr = await refusedStart(await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A) }]), { AGENT_TOOLS_REDIS_URL: url });
    assert.match(stderr, said);
    assert.doesNotMatch(stderr, /ReplyError|NaN|\n\s+at /);
    const audit = await runCli(["audit"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: url }));
    assert.equal(audit.code, 1, audit.stderr);
    assert.match(audit.stderr, said);
    const validate = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: url }));
    assert.equal(validate.code, 1, validate.stderr);
    assert.match(JSON.stringify((JSON.parse(validate.stdout) as { problems: string[] }).problems), said);
  });

  it("an audit file named beside Redis is said at start: the log is the Redis stream, and the file is not written", async () => {
    const file = path.join(dir, "never-written.jsonl");
    const server = await startHttp({ AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: file, AGENT_TOOLS_WARM_UP: "off" }, ["--config", await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true }])]);
    try {
      const said = /warn: AGENT_TOOLS_AUDIT_FILE names the file \S*never-written\.jsonl, but with Redis \(AGENT_TOOLS_REDIS_URL\) the audit log is the Redis stream 'agent-tools:audit', and that file is not written; read the log with `agent-tools audit`, and unset AGENT_TOOLS_AUDIT_FILE/;
      assert.match(server.stderr(), said);
      const { client } = await httpClient(server.url, bearer(TOKEN_A));
      const made = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "t", body: "b" }, confirm: true });
      assert.equal(made.payload.ok, true, JSON.stringify(made.payload));
      assert.equal(made.payload.audited, undefined, "the write is in the Redis stream");
      await client.close();
      await assert.rejects(readFile(file), /ENOENT/, "the file named is not written");
    } finally {
      await server.stop();
    }
  });

  it("a database Redis has is used", async () => {
    const run = await runCli(["audit", "--limit", "1"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: `${redis.url}/3`, AGENT_TOOLS_AUDIT: "on" }));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /redis stream agent-tools:audit at redis:\/\/127\.0\.0\.1:\d+\/3/);
  });
});

describe("team gateway: Redis unreachable for agent-tools audit", () => {
  it("one line names the Redis URL (masked) and the cause, no reconnect warning, no stack, exit 1", async () => {
    const port = await freePort();
    const run = await runCli(["audit"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: `redis://:s3cret-pw@127.0.0.1:${port}` }));
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr.trim(), `agent-tools: could not connect to Redis at redis://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}; check AGENT_TOOLS_REDIS_URL (or team.redis) and that redis-server runs`);
    assert.doesNotMatch(run.stderr, /s3cret|reconnecting|\n\s+at /);
  });
});

describe("team gateway: Redis unreachable for validate, status and exec", () => {
  it("each still prints its JSON answer with the connection's problem (password masked), and exits 1", async () => {
    // Before, each printed nothing on stdout: the failed connection was not caught as a problem.
    const port = await freePort();
    const env = baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: `redis://:s3cret-pw@127.0.0.1:${port}` });
    const said = new RegExp(`could not connect to Redis at redis://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; check AGENT_TOOLS_REDIS_URL \\(or team\\.redis\\) and that redis-server runs`);
    const validate = await runCli(["validate"], env);
    assert.equal(validate.code, 1, validate.stderr);
    const report = JSON.parse(validate.stdout) as { ok: boolean; problems: string[]; plugins: unknown[] };
    assert.equal(report.ok, false);
    assert.match(report.problems.join("\n"), said);
    assert.ok(report.plugins.length > 0, "the plugins are still checked and listed");
    const status = await runCli(["status"], env);
    assert.equal(status.code, 1, status.stderr);
    const answer = JSON.parse(status.stdout) as { ok: boolean; result: { status: string; problems: string[] } };
    assert.equal(answer.result.status, "NOT READY");
    assert.match(answer.result.problems.join("\n"), said);
    const exec = await runCli(["exec", "echo", "hi"], env);
    assert.equal(exec.code, 1, exec.stderr);
    const notRun = JSON.parse(exec.stdout) as { ok: boolean; command: string; exitCode: number; problems: string[] };
    assert.deepEqual([notRun.ok, notRun.command, notRun.exitCode], [false, "echo hi", 1]);
    assert.match(notRun.problems.join("\n"), said);
    for (const run of [validate, status, exec]) assert.doesNotMatch(run.stdout + run.stderr, /s3cret|\n\s+at /);
  });
});

describe("team gateway: settings from the environment", () => {
  it("a bad AGENT_TOOLS_DRAIN_MS is said, with the value used instead", async () => {
    const server = await startHttp({ AGENT_TOOLS_DRAIN_MS: "-5" }, ["--config", await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A) }])]);
    try {
      await until(() => /AGENT_TOOLS_DRAIN_MS must be a whole number of milliseconds, 0 or more and at most 2147483647 \(.*\) \(got '-5'\); using 30000/.test(server.stderr()), "the warning about AGENT_TOOLS_DRAIN_MS");
    } finally {
      await server.stop();
    }
  });

  it("a Redis URL that does not parse names the setting and what is wrong, masks its password, and prints no stack", async () => {
    const config = await configWith([{ name: "writer", tokenSha256: hashToken(TOKEN_A) }]);
    const stderr = await refusedStart(config, { AGENT_TOOLS_REDIS_URL: "redis://:s3cret-pw@127.0.0.1:notaport" });
    assert.match(stderr, /AGENT_TOOLS_REDIS_URL is not a usable Redis URL: the part after ':' in its host is not a port number \(a whole number from 1 to 65535; a password goes before '@host'\) \(got 'redis:\/\/\*\*\*@127\.0\.0\.1:notaport'\); the form is redis:\/\/\[\[user\]:password@\]host\[:port\]/);
    assert.ok(!stderr.includes("s3cret"), `the password is not in:\n${stderr}`);
    assert.doesNotMatch(stderr, /TypeError|\n\s+at /, "one line, no stack");
    // A password holding '@' shows no part of itself either; the same URL in team.redis is named so.
    const inConfig = path.join(dir, "team-redis.json");
    await writeFile(inConfig, JSON.stringify({ team: { redis: "redis://user:p@ss@w0rd@127.0.0.1:99999/0", identities: [{ name: "writer", tokenSha256: hashToken(TOKEN_A) }] } }));
    const fromConfig = await refusedStart(inConfig);
    assert.match(fromConfig, /team\.redis in the config file is not a usable Redis URL: its port 99999 is above 65535 \(got 'redis:\/\/\*\*\*@127\.0\.0\.1:99999\/0'\)/);
    assert.doesNotMatch(fromConfig, /p@ss|w0rd|user:|\n\s+at /);
  });
});

describe("team gateway: instance names", { skip: servicesMissing(["redis"]) }, () => {
  let redis: RunningService & { url: string };
  let config: string;
  before(async () => {
    redis = await startRedis();
    // Heartbeats expire 1.5 s after the last beat: a start that waits for one waits that long.
    config = path.join(dir, "team-heartbeat.json");
    await writeFile(config, JSON.stringify({ team: { heartbeatTtlMs: 1500, identities: [{ name: "writer", tokenSha256: hashToken(TOKEN_A), plugins: ["*"], write: true }] } }));
  });
  after(async () => {
    await redis?.stop();
  });
  const heartbeat = async (name: string): Promise<string | null> => {
    const raw = new Redis(redis.url);
    try {
      return await raw.get(`agent-tools:instance:${name}`);
    } finally {
      raw.disconnect();
    }
  };

  it("a name the balancer's workspace rule cannot match (gw-c.dc1) stops the start, naming the allowed characters; validate lists it", async () => {
    const said = /AGENT_TOOLS_INSTANCE_ID 'gw-c\.dc1' cannot name an instance: it holds '\.'\. Use 1 to 64 letters, digits, '-' and '_' \(e\.g\. gw-c-dc1\): the name goes into workspace handles, where the balancer's use-server rules match it/;
    const stderr = await refusedStart(config, { AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_INSTANCE_ID: "gw-c.dc1" });
    assert.match(stderr, said);
    assert.doesNotMatch(stderr, /\n\s+at /, "one line, no stack");
    assert.equal(await heartbeat("gw-c.dc1"), null, "no heartbeat was written under it");
    const validate = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_INSTANCE_ID: "gw-c.dc1" }));
    assert.equal(validate.code, 1, validate.stderr);
    assert.match(JSON.stringify((JSON.parse(validate.stdout) as { problems: string[] }).problems), said);
  });

  it("a second process with a live instance's name stops at start; the first keeps its heartbeat and its shell's files", async () => {
    const env = { AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_INSTANCE_ID: "gw-dup", AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_WARM_UP: "off" };
    const first = await startHttp(env, ["--config", config]);
    const { client } = await httpClient(first.url, bearer(TOKEN_A));
    try {
      const wrote = await callJson(client, "agent_tools_exec", { command: "echo important > notes.txt" });
      assert.equal(wrote.payload.ok, true, JSON.stringify(wrote.payload));
      const stderr = await refusedStart(config, env);
      assert.match(stderr, /instance 'gw-dup': a heartbeat under this name is in Redis \(agent-tools:instance:gw-dup\); waiting up to \d+ s to see whether the process that wrote it still runs/);
      assert.match(stderr, /another process runs as instance 'gw-dup': its heartbeat in Redis \(agent-tools:instance:gw-dup\) is renewed\. Each instance needs a name of its own: set AGENT_TOOLS_INSTANCE_ID to another one/);
      assert.doesNotMatch(stderr, /\n\s+at /, "one line, no stack");
      // The refused process deleted nothing of the first one's: its heartbeat and its shell stay.
      assert.notEqual(await heartbeat("gw-dup"), null);
      const read = await callJson(client, "agent_tools_exec", { command: "cat notes.txt" });
      assert.equal(String(read.payload.stdout).trim(), "important", JSON.stringify(read.payload));
    } finally {
      await client.close();
      await first.stop();
    }
  });

  it("the name of an instance that crashed is taken once its heartbeat expired; one that stopped cleanly at once", async () => {
    const env = { AGENT_TOOLS_REDIS_URL: redis.url, AGENT_TOOLS_INSTANCE_ID: "gw-crash", AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_WARM_UP: "off" };
    const crashed = await startHttp(env, ["--config", config]);
    crashed.child.kill("SIGKILL");
    await crashed.exited;
    assert.notEqual(await heartbeat("gw-crash"), null, "a crash leaves the heartbeat until it expires");
    const restarted = await startHttp(env, ["--config", config]);
    try {
      assert.match(restarted.stderr(), /instance 'gw-crash': a heartbeat under this name is in Redis/);
      assert.doesNotMatch(restarted.stderr(), /another process runs as instance/);
    } finally {
      await restarted.stop();
    }
    assert.equal(await heartbeat("gw-crash"), null, "a clean stop removes its heartbeat");
    const again = await startHttp(env, ["--config", config]);
    try {
      assert.doesNotMatch(again.stderr(), /a heartbeat under this name is in Redis/, "nothing to wait for after a clean stop");
    } finally {
      await again.stop();
    }
  });
});

describe("team gateway: the metrics port of its own", () => {
  const withMetrics = async (metrics: unknown): Promise<string> => {
    const file = path.join(dir, `team-metrics.${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ team: { metrics, identities: [{ name: "writer", tokenSha256: hashToken(TOKEN_A), plugins: ["*"] }] } }));
    return file;
  };

  it("a port in use, a host not of this machine, or the HTTP port itself stop the start in one line naming team.metrics, no stack", async () => {
    const holder = createServer();
    const held = await new Promise<number>((resolve) => holder.listen(0, "127.0.0.1", () => resolve((holder.address() as { port: number }).port)));
    try {
      const busy = await refusedStart(await withMetrics({ port: held }));
      assert.match(busy, new RegExp(`the metrics port of its own \\(team\\.metrics\\): port ${held} on 127\\.0\\.0\\.1 is already in use; stop what holds it, or pick another with the config's team\\.metrics\\.port \\(0 picks a free one\\)`));
      assert.doesNotMatch(busy, /\n\s+at |EADDRINUSE/, "one line, no stack");
    } finally {
      holder.close();
    }
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    const foreign = await refusedStart(await withMetrics({ port: 0, host: "192.0.2.1" }));
    assert.match(foreign, /the metrics port of its own \(team\.metrics\): cannot listen on 192\.0\.2\.1: it is not an address of this machine; set the config's team\.metrics\.host to one of its addresses/);
    assert.doesNotMatch(foreign, /\n\s+at /);
    const port = await freePort();
    const same = await refusedStart(await withMetrics({ port }), { AGENT_TOOLS_HTTP_PORT: String(port) });
    assert.match(same, new RegExp(`team\\.metrics\\.port ${port} is the HTTP port too \\(AGENT_TOOLS_HTTP_PORT or http\\.port\\); give the metrics a port of their own`));
    assert.doesNotMatch(same, /another agent-tools-mcp-http/);
  });
});
