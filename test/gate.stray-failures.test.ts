import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callJson, connect, forSuite, writePlugin, type Payload } from "./helpers.js";
import { httpClient, startHttp } from "./http-helpers.js";
import { until } from "./wait.js";

/**
 * A plugin's code that fails outside any call must not end the server (it would end every
 * session): the built server over stdio and over HTTP, with a plugin that holds web platform
 * values (a URL, Headers), a class of its own with conversions, a skill that fires a write and
 * forgets it, and tools that leave a rejected promise or a throwing timer behind them.
 */

const root = mkdtempSync(path.join(tmpdir(), "gate-stray-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A host variable whose name says credential: the runtime masks its value in every log line. */
const SECRET = "sk-live-strayfailure-9f8e7d6c5b4a";

const ADAPTER = `
const log = [];
class Client {
  toString() { return "client of api.example.com"; }
  toJSON() { return { kind: "client" }; }
  async del(id) { log.push("del " + id); return "deleted"; }
}
export default function createAdapter() {
  return {
    baseUrl: new URL("https://api.example.com/v1/"),
    headers: new Headers({ accept: "json" }),
    client: new Client(),
    async listTools() { return { tools: ["write_b", "log", "poll", "tick"].map((name) => ({ name, inputSchema: { type: "object" } })) }; },
    async call(name, args) {
      if (name === "log") return { log };
      // A background poll whose failure nobody handles, and a timer that throws: both after the call answered.
      if (name === "poll") { setTimeout(() => void Promise.reject(new Error("poll failed, key " + process.env.SW_API_KEY)), 20); return { polling: true }; }
      if (name === "tick") { setTimeout(() => { throw new Error("tick broke, key " + process.env.SW_API_KEY); }, 20); return { ticking: true }; }
      log.push("call " + name); return { wrote: name };
    },
  };
}
`;

const skill = (body: string): string => `export const meta = { description: "stray" };\nexport async function run(adapter, args, context) {\n${body}\n}\n`;

const SKILLS: Record<string, string> = {
  "url-string": "return { u: String(adapter.baseUrl) };",
  "url-new": `return { u: new URL("items", adapter.baseUrl).href };`,
  "url-tpl": "return { u: `${adapter.baseUrl}items` };",
  headers: `return { h: adapter.headers.get("accept") };`,
  "client-text": "return { tpl: `${adapter.client}`, str: String(adapter.client), json: JSON.stringify(adapter.client) };",
  "client-valueof": "const self = adapter.client.valueOf(); return { same: self === adapter.client, del: await self.del(1) };",
  "fire-nocatch": `adapter.call("write_b", {}); return { started: true };`,
};

const files: Record<string, string> = { "adapter.mjs": ADAPTER };
for (const [name, body] of Object.entries(SKILLS)) files[`skills/${name}.mjs`] = skill(body);
const plugins = path.join(root, "plugins");
writePlugin(path.join(plugins, "agent-tools-plugin-sw"), { name: "sw", prefix: "sw", adapter: "./adapter.mjs", readonlyTools: ["log", "poll", "tick"] }, files);

interface Server {
  client: Client;
  stderr: () => string;
  /** Whether the server's process is still running. */
  alive: () => boolean;
}

function strayFailureSuite(transport: string, open: () => Promise<Server & { close: () => Promise<void> }>): void {
  describe(`a plugin's stray failures over ${transport}`, () => {
    const server = forSuite(open, (opened) => opened.close());
    const run = async (name: string): Promise<Payload> => (await callJson(server.client, "agent_tools_sw_run_skill", { skill: name, arguments: {} })).payload;
    const call = async (toolName: string): Promise<Payload> => (await callJson(server.client, "agent_tools_sw_call", { toolName, arguments: {} })).payload;
    const backendLog = async (): Promise<string[]> => ((await call("log")).result as { log: string[] }).log;

    it("read-only skills use the URL and Headers the adapter holds as the values they are", async () => {
      assert.deepEqual((await run("url-string")).result, { u: "https://api.example.com/v1/" });
      assert.deepEqual((await run("url-new")).result, { u: "https://api.example.com/v1/items" });
      assert.deepEqual((await run("url-tpl")).result, { u: "https://api.example.com/v1/items" });
      assert.deepEqual((await run("headers")).result, { h: "json" });
      assert.ok(server.alive());
    });

    it("a plugin class's conversions run ungated, and valueOf is no way around the gate", async () => {
      assert.deepEqual((await run("client-text")).result, { tpl: "client of api.example.com", str: "client of api.example.com", json: '{"kind":"client"}' });
      const refused = await run("client-valueof");
      assert.equal(refused.error?.code, "CONFIRM_REQUIRED", JSON.stringify(refused));
      assert.equal(refused.error?.details?.tool, "client.del");
      assert.deepEqual(await backendLog(), []);
    });

    it("a write the skill fires and never awaits is refused as the run's answer, and the server keeps serving", async () => {
      const refused = await run("fire-nocatch");
      assert.equal(refused.error?.code, "CONFIRM_REQUIRED", JSON.stringify(refused));
      assert.equal(refused.error?.details?.tool, "write_b");
      // Past the turn where an unhandled rejection would have ended the process.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(server.alive(), `the server is still running: ${server.stderr().slice(-500)}`);
      assert.deepEqual(await backendLog(), [], "nothing was written, and a following call is answered");
      assert.doesNotMatch(server.stderr(), /unhandled rejection/);
    });

    it("a rejection and a throw in an adapter's timer are logged once, masked and attributed, and the server keeps serving", async () => {
      assert.deepEqual((await call("poll")).result, { polling: true });
      await until(() => server.stderr().includes("poll failed"), "the background rejection's log line");
      assert.deepEqual((await call("tick")).result, { ticking: true });
      await until(() => server.stderr().includes("tick broke"), "the timer's exception's log line");
      const stderr = server.stderr();
      assert.match(stderr, /error: unhandled rejection from plugin 'sw': Error: poll failed, key \S+; it was not part of any call/);
      assert.match(stderr, /error: uncaught exception from plugin 'sw': Error: tick broke, key \S+; .*the server keeps serving/);
      assert.ok(!stderr.includes(SECRET), "the credential is masked in the log");
      // Said once: a second failure of the same text goes to debug only.
      assert.deepEqual((await call("poll")).result, { polling: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(server.stderr().match(/unhandled rejection from plugin 'sw'/g)?.length, 1);
      assert.ok(server.alive());
      assert.deepEqual((await run("url-string")).result, { u: "https://api.example.com/v1/" });
    });
  });
}

const env = { SW_API_KEY: SECRET };

strayFailureSuite("stdio", async () => {
  const connected = await connect(plugins, env);
  return {
    ...connected,
    alive: () => {
      try {
        process.kill(connected.pid, 0);
        return true;
      } catch {
        return false;
      }
    },
  };
});

strayFailureSuite("HTTP", async () => {
  const running = await startHttp({ ...env, AGENT_TOOLS_PLUGINS_DIR: plugins });
  const { client } = await httpClient(running.url);
  return {
    client,
    stderr: running.stderr,
    alive: () => running.child.exitCode === null && running.child.signalCode === null,
    close: async () => {
      await client.close();
      await running.stop();
    },
  };
});
