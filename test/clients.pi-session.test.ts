import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CALL_TIMEOUT_VAR,
  DEFAULT_CALL_TIMEOUT_MS,
  errorMessage,
  RuntimeSession,
  settingsFromEnv,
} from "../integrations/pi-extension/runtime-session.js";
import { eventually, httpClient, httpForSuite, startHttp } from "./http-helpers.js";

/**
 * The pi extension's MCP side (integrations/pi-extension/runtime-session.ts) driven directly
 * against the built HTTP runtime: what happens when its session is lost, refused or slow, and what
 * the model reads when a call fails. clients.pi.test.ts runs the same code inside the real pi.
 */

/** Open legacy sessions on the runtime, read from its /metrics. */
async function openSessions(url: string): Promise<number> {
  const text = await (await fetch(new URL("/metrics", url))).text();
  const match = /^agent_tools_sessions_open(?:\{[^}]*\})? (\d+)/m.exec(text);
  assert.ok(match, `agent_tools_sessions_open is in /metrics:\n${text.slice(0, 500)}`);
  return Number(match[1]);
}

function count(text: string, pattern: RegExp): number {
  return (text.match(pattern) ?? []).length;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, `an Error: ${String(error)}`);
    return error;
  }
  assert.fail("the call was expected to fail");
}

describe("pi extension session: a refused re-initialize", () => {
  // one session slot: another client takes it from pi's idle session and holds it with a running call
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "1" });

  it("says the runtime runs and asked for a retry (Retry-After), and the next call opens a session again", { timeout: 60_000 }, async () => {
    const session = new RuntimeSession({ url: http.url });
    try {
      await session.connect();
      assert.notEqual((await session.callTool("agent_tools_help", {})).isError, true);

      const other = await httpClient(http.url);
      const busy = other.client.callTool({ name: "agent_tools_exec", arguments: { command: "sleep 4; echo done" } });
      // the other call must be running when pi's call comes (a loaded machine: a second)
      await sleep(1_000);
      const refused = await rejection(session.callTool("agent_tools_help", {}));
      assert.match(refused.message, /^agent-tools-runtime at http:\/\/\S+ is running but did not open a session: too many open sessions: all 1 \(http\.maxSessions\) have a request in flight/);
      assert.match(refused.message, /\(HTTP 503, JSON-RPC error -32000\)\. Try again in 5 s \(its Retry-After\)\. Nothing was run/);
      assert.doesNotMatch(refused.message, /not reachable|Start it with/, "the runtime runs: it is not said to be down");

      await busy;
      await other.client.close();
      const after = await session.callTool("agent_tools_help", {});
      assert.notEqual(after.isError, true, "the call after the other client left opened a session and ran");
      assert.notEqual((await session.callTool("agent_tools_help", {})).isError, true, "and the one after it too");
    } finally {
      await session.close();
    }
  });
});

describe("pi extension session: parallel calls after the runtime restarted", () => {
  it("open one new session between them, and shutdown ends it", { timeout: 90_000 }, async () => {
    const first = await startHttp();
    const port = new URL(first.url).port;
    const session = new RuntimeSession({ url: first.url });
    let second: Awaited<ReturnType<typeof startHttp>> | undefined;
    try {
      await session.connect();
      assert.notEqual((await session.callTool("agent_tools_help", {})).isError, true);
      await first.stop();
      // the same address, a new process: pi's session id is unknown there (404)
      second = await startHttp({ AGENT_TOOLS_HTTP_PORT: port });
      const results = await Promise.all([1, 2, 3].map(() => session.callTool("agent_tools_help", {})));
      for (const result of results) assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const log = second.stderr();
      assert.equal(count(log, /status=404/g), 3, `each call met the lost session once:\n${log}`);
      assert.equal(count(log, /http POST \/mcp initialize /g), 1, `one session opened for the three:\n${log}`);
      assert.equal(await openSessions(second.url), 1);

      await session.close();
      const running = second;
      await eventually(() => /http DELETE .*status=200/.test(running.stderr()), "the DELETE of the one session");
      assert.equal(await openSessions(second.url), 0, "no session is left open on the runtime");
    } finally {
      await session.close();
      await second?.stop();
      await first.stop();
    }
  });
});

describe("pi extension session: calls and their failures", () => {
  const http = httpForSuite({ AGENT_TOOLS_DRAIN_MS: "500" });

  it("a call past the extension's own limit is cancelled with what that means and the setting that raises it", { timeout: 60_000 }, async () => {
    const session = new RuntimeSession({ url: http.url, callTimeoutMs: 1_000 });
    try {
      const error = await rejection(session.callTool("agent_tools_exec", { command: "sleep 5; echo late" }));
      assert.match(error.message, /^agent_tools_exec got no answer from agent-tools-runtime at http:\/\/\S+ within 1000 ms, this extension's limit \(AGENT_TOOLS_PI_CALL_TIMEOUT_MS\)/);
      assert.match(error.message, /whether it took effect is unknown/);
      assert.match(error.message, /set AGENT_TOOLS_PI_CALL_TIMEOUT_MS higher in pi's environment, above the runtime's own deadline \(AGENT_TOOLS_CALL_TIMEOUT_MS\)/);
      // the session is still good for the next call
      assert.notEqual((await session.callTool("agent_tools_help", {})).isError, true);
    } finally {
      await session.close();
    }
  });

  it("a failed agent_tools_exec reads as its exit code and stderr first, the runtime's note as the hint", { timeout: 60_000 }, async () => {
    const session = new RuntimeSession({ url: http.url });
    try {
      const limited = await session.callTool("agent_tools_exec", { command: "seq 1 300000" });
      assert.equal(limited.isError, true);
      const message = errorMessage(limited);
      assert.match(message, /^exit code 126 \(stopped: limit\): bash: seq: iteration limit exceeded \(100000\)\nHint: a sandbox limit stopped the command line/);
      assert.match(message, /\n\{"ok":false,"command":"seq 1 300000"/, "then the whole payload");

      const failed = errorMessage(await session.callTool("agent_tools_exec", { command: "echo first >&2; echo 'it broke' >&2; exit 3" }));
      assert.match(failed, /^exit code 3: it broke\n\{/);
      assert.match(errorMessage(await session.callTool("agent_tools_exec", { command: "false" })), /^exit code 1: nothing on stderr\n/);
    } finally {
      await session.close();
    }
  });
});

describe("pi extension session: the runtime stops during a call", () => {
  it("the runtime's interruption message arrives as its own words, not the SDK's HTTP error text", { timeout: 60_000 }, async () => {
    const http = await startHttp({ AGENT_TOOLS_DRAIN_MS: "300" });
    const session = new RuntimeSession({ url: http.url });
    try {
      await session.connect();
      const call = rejection(session.callTool("agent_tools_exec", { command: "sleep 20; echo late" }));
      await sleep(1_000);
      http.child.kill("SIGTERM");
      const error = await call;
      assert.match(error.message, /this server shut down \(.*\) while the request was running: .*whether it took effect is unknown/);
      assert.doesNotMatch(error.message, /Streamable HTTP error|Error POSTing/);
    } finally {
      await session.close();
      await http.stop();
    }
  });
});

describe("pi extension settings", () => {
  it("waits 300 s for a call by default, longer than the runtime's deadline when that is set, and refuses a bad value", () => {
    assert.equal(settingsFromEnv({}).callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS);
    assert.equal(DEFAULT_CALL_TIMEOUT_MS, 300_000);
    assert.equal(settingsFromEnv({ AGENT_TOOLS_CALL_TIMEOUT_MS: "120000" }).callTimeoutMs, 300_000, "under the default: the default");
    assert.equal(settingsFromEnv({ AGENT_TOOLS_CALL_TIMEOUT_MS: "600000" }).callTimeoutMs, 630_000, "the runtime's deadline and 30 s");
    assert.equal(settingsFromEnv({ [CALL_TIMEOUT_VAR]: "90000", AGENT_TOOLS_CALL_TIMEOUT_MS: "600000" }).callTimeoutMs, 90_000, "the extension's own setting wins");
    assert.throws(() => settingsFromEnv({ [CALL_TIMEOUT_VAR]: "2m" }), /AGENT_TOOLS_PI_CALL_TIMEOUT_MS must be a whole number of milliseconds above 0 \(got "2m"\)/);
    assert.throws(() => settingsFromEnv({ [CALL_TIMEOUT_VAR]: "0" }), /above 0 \(got "0"\)/);
  });
});
