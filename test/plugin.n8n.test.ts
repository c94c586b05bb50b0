import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { silentLogger } from "../src/log.js";
import { hashToken } from "../src/gateway/identities.js";
import { callJson, connect, ROOT, type Connected, type Payload } from "./helpers.js";
import { httpClient, startHttp } from "./http-helpers.js";
import { makeWorkflow, startN8nStandIn, type N8nStandIn } from "./fixtures/n8n/n8n-server.js";
import { freePort } from "./services-kit.js";

/**
 * The bundled n8n plugin end to end: the built server over stdio, the plugin loaded from
 * plugins/agent-tools-plugin-n8n, talking to a local n8n stand-in (MCP + public REST API).
 */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-n8n");
let tmp: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "n8n-plugin-"));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function envFor(n8n: N8nStandIn, extra: Record<string, string> = {}): Record<string, string> {
  return {
    N8N_INSTANCE_URL: n8n.origin,
    N8N_MCP_TOKEN: n8n.mcpToken,
    N8N_API_KEY: n8n.apiKey,
    N8N_MCP_TOKEN_STORE: path.join(tmp, "no-such-store.json"),
    ...extra,
  };
}

async function skill(server: Connected, name: string, args: Record<string, unknown> = {}): Promise<{ payload: Payload; isError: boolean; result: Record<string, unknown> }> {
  const { payload, isError } = await callJson(server.client, "agent_tools_n8n_run_skill", { skill: name, arguments: args });
  return { payload, isError, result: (payload.result ?? {}) as Record<string, unknown> };
}

function assertNoSecrets(n8n: N8nStandIn, server: Connected, ...payloads: unknown[]): void {
  const text = JSON.stringify(payloads) + server.stderr();
  assert.ok(!text.includes(n8n.apiKey), "the API key leaked");
  assert.ok(!text.includes(n8n.mcpToken), "the MCP token leaked");
}

describe("n8n plugin: not configured", () => {
  it("loads without N8N_* variables, help says what to set, calls answer NOT_CONFIGURED", async () => {
    const server = await connect(PLUGIN);
    try {
      const { payload: help } = await callJson(server.client, "agent_tools_help");
      const entry = (help.plugins as { prefix: string; status: string; confirm?: string; skills?: string[] }[]).find((p) => p.prefix === "n8n");
      assert.ok(entry, "n8n is listed");
      assert.equal(entry.status, "not configured: set N8N_MCP_URL or N8N_INSTANCE_URL");
      // The whole list says only what to set; the plugin's own help still names its skills.
      assert.equal(entry.skills, undefined);
      const { payload: own } = await callJson(server.client, "agent_tools_help", { plugin: "n8n" });
      assert.ok((own.plugin as { skills?: { name: string }[] }).skills?.some((skill) => skill.name === "find-workflows"));
      for (const [tool, args] of [
        ["agent_tools_n8n_discover", {}],
        ["agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} }],
        ["agent_tools_n8n_run_skill", { skill: "find-workflows", arguments: {} }],
      ] as const) {
        const { payload, isError } = await callJson(server.client, tool, args);
        assert.equal(isError, true, tool);
        assert.equal(payload.error?.code, "NOT_CONFIGURED", tool);
        assert.deepEqual(payload.error?.details?.missing, ["N8N_MCP_URL|N8N_INSTANCE_URL"]);
      }
      // A discover's query is no tool's name: the error answer names the plugin, and no `target`.
      const { payload: queried } = await callJson(server.client, "agent_tools_n8n_discover", { query: "workflows" });
      assert.equal(queried.error?.code, "NOT_CONFIGURED");
      assert.equal(queried.plugin, "n8n");
      assert.equal("target" in queried, false, JSON.stringify(queried));
    } finally {
      await server.close();
    }
  });

  it("REST skills without N8N_API_KEY answer NOT_CONFIGURED naming it; MCP tools still work", async () => {
    const n8n = await startN8nStandIn({ workflows: 3 });
    const env = envFor(n8n);
    delete (env as Record<string, string | undefined>).N8N_API_KEY;
    const server = await connect(PLUGIN, env);
    try {
      const { payload } = await skill(server, "find-workflows");
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual(payload.error?.details?.missing, ["N8N_API_KEY"]);
      const { payload: called } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: { query: "" } });
      assert.equal(called.ok, true);
      const { payload: discovered } = await callJson(server.client, "agent_tools_n8n_discover", {});
      assert.deepEqual(discovered.context, { personalProject: { id: "proj-personal-7", name: "Ada Lovelace <ada@example.com>" }, source: "mcp" }, "the context falls back to MCP search_projects");
      assertNoSecrets(n8n, server, payload, called, discovered);
    } finally {
      await server.close();
      await n8n.close();
    }
  });
});

describe("n8n plugin: MCP facade, policy and discover context", () => {
  let n8n: N8nStandIn;
  let server: Connected;
  before(async () => {
    n8n = await startN8nStandIn({ workflows: 5 });
    n8n.fail({ method: "GET", path: /^\/projects$/, status: 503, message: "Service Unavailable" });
    n8n.failMcp("search_projects", "projects are unavailable");
    server = await connect(PLUGIN, envFor(n8n));
  });
  after(async () => {
    await server.close();
    await n8n.close();
  });

  it("discover reports a failed context, then attaches the personal project, fetched once", async () => {
    const first = await callJson(server.client, "agent_tools_n8n_discover", {});
    assert.equal(first.payload.ok, true);
    assert.match(String(first.payload.contextError), /GET \/projects: .*503.*search_projects: .*projects are unavailable/);
    // Without a query discover shows 10 by default, skills first; ask for enough to see tools too.
    const second = await callJson(server.client, "agent_tools_n8n_discover", { limit: 40 });
    assert.deepEqual(second.payload.context, { personalProject: { id: "proj-personal-7", name: "Ada Lovelace <ada@example.com>" }, source: "rest" });
    assert.equal(second.payload.confirm, "not required: this plugin's calls run without confirmation");
    const third = await callJson(server.client, "agent_tools_n8n_discover", { query: "workflows" });
    assert.deepEqual(third.payload.context, second.payload.context);
    assert.equal(n8n.requests.filter((r) => r.path === "/projects").length, 2, "one failed fetch, one good one, then cached");
    const names = (second.payload.matches as { name: string; kind: string }[]).map((m) => m.name);
    assert.ok(names.includes("find-workflows") && names.includes("search_workflows"));
  });

  it("calls read-only and mutating tools without confirm; mutating descriptions say so", async () => {
    const read = await callJson(server.client, "agent_tools_n8n_call", { toolName: "get_workflow_details", arguments: { workflowId: "wf0001" } });
    assert.equal(read.payload.ok, true);
    const write = await callJson(server.client, "agent_tools_n8n_call", { toolName: "publish_workflow", arguments: { workflowId: "wf0001" } });
    assert.equal(write.payload.ok, true, JSON.stringify(write.payload));
    const found = await callJson(server.client, "agent_tools_n8n_discover", { query: "publish workflow activate" });
    const publish = (found.payload.matches as { name: string; description: string; confirm?: boolean }[]).find((m) => m.name === "publish_workflow");
    assert.ok(publish, "publish_workflow is found");
    assert.equal(publish.confirm, undefined);
    assert.match(publish.description, /Publish/);
    assert.ok(n8n.mcpCalls.some((c) => c.name === "publish_workflow"));
  });

  it("the full description of every tool that changes data says it runs without confirmation", async () => {
    const mod = (await import(pathToFileURL(path.join(PLUGIN, "adapter.mjs")).href)) as { createN8nAdapter: (o: unknown) => { listTools(): Promise<{ tools: { name: string; description?: string }[] }>; close(): Promise<void> } };
    const manifest = JSON.parse(await import("node:fs/promises").then((fs) => fs.readFile(path.join(PLUGIN, "plugin.json"), "utf8"))) as { extensions: Record<string, { readonlyTools: string[] }> };
    const section = manifest.extensions["dev.agent-tools-runtime"]!;
    const adapter = mod.createN8nAdapter({ pluginDir: PLUGIN, manifest: section, env: envFor(n8n), log: silentLogger });
    try {
      const { tools } = await adapter.listTools();
      const mutating = tools.filter((t) => !section.readonlyTools.includes(t.name));
      assert.ok(mutating.length >= 5);
      for (const tool of mutating) assert.match(tool.description ?? "", /Runs without confirmation \(the n8n plugin sets requireConfirm: false\)\.$/, tool.name);
      for (const tool of tools.filter((t) => section.readonlyTools.includes(t.name))) assert.doesNotMatch(tool.description ?? "", /without confirmation/, tool.name);
      assert.equal(tools.filter((t) => section.readonlyTools.includes(t.name)).length, 18, "every read-only name is a real tool");
    } finally {
      await adapter.close();
    }
  });

  it("an unknown tool name gets the closest real names", async () => {
    const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflow", arguments: {} });
    assert.equal(payload.error?.code, "UNKNOWN_TOOL");
    assert.ok((payload.error?.details?.suggestions as string[]).includes("search_workflows"));
  });

  it("an unknown skill name gets the closest real names", async () => {
    const { payload } = await skill(server, "find-workflow");
    assert.equal(payload.error?.code, "UNKNOWN_SKILL");
    assert.ok((payload.error?.details?.suggestions as string[]).includes("find-workflows"));
    assertNoSecrets(n8n, server, payload);
  });
});

describe("n8n plugin: connection variants", () => {
  it("N8N_MCP_URL alone gives the MCP endpoint and, derived from it, the REST instance", async () => {
    const n8n = await startN8nStandIn({ workflows: 2 });
    const env = envFor(n8n, { N8N_MCP_URL: n8n.mcpUrl });
    delete (env as Record<string, string | undefined>).N8N_INSTANCE_URL;
    const server = await connect(PLUGIN, env);
    try {
      const { result } = await skill(server, "find-workflows");
      assert.equal(result.total, 2);
      const called = await callJson(server.client, "agent_tools_n8n_call", { toolName: "list_tags", arguments: {} });
      assert.equal(called.payload.ok, true);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("without N8N_MCP_TOKEN the OAuth token store is used and an expired token refreshed", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const store = path.join(tmp, "tokens.json");
    await writeFile(store, JSON.stringify({ access_token: "expired-access-token", refresh_token: "n8n-refresh-first", expires_at: Date.now() - 60_000, token_endpoint: `${n8n.origin}/oauth/token`, client_id: "agent-tools" }));
    const env = envFor(n8n, { N8N_MCP_TOKEN_STORE: store });
    delete (env as Record<string, string | undefined>).N8N_MCP_TOKEN;
    const server = await connect(PLUGIN, env);
    try {
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: { query: "" } });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.equal(n8n.tokenRequests(), 1);
      assertNoSecrets(n8n, server, payload);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("the default token store is under $XDG_CONFIG_HOME, else ~/.config (XDG_CONFIG_HOME unset, empty or relative), else the one earlier versions kept at ~/.config", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const expired = (n: number) => JSON.stringify({ access_token: `expired-${n}`, refresh_token: "n8n-refresh-first", expires_at: Date.now() - 60_000, token_endpoint: `${n8n.origin}/oauth/token`, client_id: "agent-tools" });
    const xdg = path.join(tmp, "xdg-config");
    const elsewhere = path.join(tmp, "xdg-elsewhere");
    const home = path.join(tmp, "home");
    const underXdg = path.join(xdg, "agent-tools", "n8n", "tokens.json");
    const underHome = path.join(home, ".config", "agent-tools", "n8n", "tokens.json");
    const notice = /n8n: using the OAuth token store (\S+), where earlier versions kept it: (\S+) \(under XDG_CONFIG_HOME\) does not exist/g;
    const cases = [
      { xdgValue: xdg, file: underXdg },
      { xdgValue: "", file: underHome },
      // The XDG spec: a relative value is ignored (resolved, it would point into the plugin's folder).
      { xdgValue: "relative/config", file: underHome },
      // Signed in with an earlier version (always ~/.config), XDG_CONFIG_HOME elsewhere: that store is used, and kept.
      { xdgValue: elsewhere, file: underHome, legacy: true },
    ];
    try {
      for (const [n, { xdgValue, file, legacy }] of cases.entries()) {
        for (const [m, store] of [underXdg, underHome].entries()) {
          await mkdir(path.dirname(store), { recursive: true });
          await writeFile(store, expired(10 * n + m));
        }
        const env: Record<string, string | undefined> = envFor(n8n, { XDG_CONFIG_HOME: xdgValue, HOME: home });
        delete env.N8N_MCP_TOKEN;
        delete env.N8N_MCP_TOKEN_STORE;
        const server = await connect(PLUGIN, env as Record<string, string>);
        try {
          const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: { query: "" } });
          assert.equal(payload.ok, true, `XDG_CONFIG_HOME='${xdgValue}': ${JSON.stringify(payload)} ${server.stderr()}`);
          assert.equal(n8n.tokenRequests(), n + 1, "the expired token in that store was refreshed");
          for (const store of [underXdg, underHome]) {
            const stored = (JSON.parse(await readFile(store, "utf8")) as { access_token: string }).access_token;
            if (store === file) assert.doesNotMatch(stored, /^expired-/, `XDG_CONFIG_HOME='${xdgValue}': ${store} holds the refreshed token`);
            else assert.match(stored, /^expired-/, `XDG_CONFIG_HOME='${xdgValue}': ${store} is not used`);
          }
          const notices = [...server.stderr().matchAll(notice)];
          if (legacy) {
            assert.equal(notices.length, 1, server.stderr());
            assert.deepEqual([notices[0]?.[1], notices[0]?.[2]], [underHome, path.join(elsewhere, "agent-tools", "n8n", "tokens.json")]);
            assert.ok(!existsSync(path.join(elsewhere, "agent-tools")), "nothing is written to the new place");
          } else assert.equal(notices.length, 0, server.stderr());
        } finally {
          await server.close();
        }
      }
      assert.ok(!existsSync(path.join(PLUGIN, "relative")), "a relative XDG_CONFIG_HOME put nothing in the plugin's folder");
    } finally {
      await n8n.close();
    }
  });

  it("a wrong API key is a 401 naming N8N_API_KEY whose message holds neither secret; a foreign url is refused", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const server = await connect(PLUGIN, envFor(n8n, { N8N_API_KEY: "n8n_api_wrong_key_123456" }));
    try {
      const { payload } = await skill(server, "find-workflows");
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.match(payload.error?.message ?? "", /answered HTTP 401: n8n refused the API key in N8N_API_KEY \(unauthorized\)/);
      assert.match(payload.error?.hint ?? "", /^Tell the user: Set N8N_API_KEY in the environment of the agent-tools server to a valid n8n API key/);
      assert.ok(!JSON.stringify(payload).includes("n8n_api_wrong_key_123456"));
      const foreign = await skill(server, "find-workflows", { url: "https://evil.example.com" });
      assert.equal(foreign.payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(foreign.payload.error?.message ?? "", /not the configured n8n instance/);
      const same = await skill(server, "delete-workflow", { url: `${n8n.origin}/`, id: "nope" });
      assert.match(same.payload.error?.message ?? "", /401/, "a url naming the instance itself is accepted");
      assert.ok(!server.stderr().includes("n8n_api_wrong_key_123456"));
    } finally {
      await server.close();
      await n8n.close();
    }
  });
});

describe("n8n plugin: what each variable is for", () => {
  it("N8N_MCP_TOKEN_STORE is a path, not a secret: a missing store is named in the error, while the API key stays masked", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const store = path.join(tmp, "chosen", "missing-tokens.json");
    const env: Record<string, string | undefined> = envFor(n8n, { N8N_MCP_TOKEN_STORE: store });
    delete env.N8N_MCP_TOKEN;
    const server = await connect(PLUGIN, env as Record<string, string>);
    try {
      const discovered = (await callJson(server.client, "agent_tools_n8n_discover", {})).payload;
      assert.equal(discovered.ok, true, "discover answers the skills");
      assert.ok(String(discovered.unavailable).startsWith("the OAuth token store"), String(discovered.unavailable));
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.ok((payload.error?.message ?? "").includes(`the OAuth token store ${store} does not exist`), payload.error?.message);
      assert.ok((payload.error?.hint ?? "").startsWith(`Tell the user: Create or rewrite ${store} with a token set`), payload.error?.hint);
      assert.doesNotMatch(JSON.stringify([discovered, payload]), /\[redacted\]/);
      assertNoSecrets(n8n, server, discovered, payload);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("a token typed into N8N_MCP_TOKEN_STORE stays masked in discover, search, help, exec and stderr, as in a call's error", async () => {
    // A JWT where the store's path belongs: the adapter reads it as a relative path, and the
    // answers that succeed with a line about it (discover's `unavailable`, search's) quote it.
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    const closed = await freePort();
    const server = await connect(PLUGIN, { N8N_MCP_URL: `http://127.0.0.1:${closed}/mcp-server/http`, N8N_MCP_TOKEN_STORE: jwt });
    try {
      const answers: Record<string, Payload> = {};
      for (const [name, args] of [
        ["agent_tools_n8n_discover", { query: "workflows" }],
        ["agent_tools_search", { query: "n8n workflows" }],
        ["agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} }],
        ["agent_tools_help", { plugin: "n8n" }],
        ["agent_tools_help", {}],
        ["agent_tools_exec", { command: "n8n discover workflows" }],
      ] as const) {
        answers[`${name} ${JSON.stringify(args)}`] = (await callJson(server.client, name, args)).payload;
      }
      const discovered = answers['agent_tools_n8n_discover {"query":"workflows"}']!;
      assert.equal(discovered.ok, true, JSON.stringify(discovered));
      // The line is still there, the token in it masked.
      assert.match(String(discovered.unavailable), /^the OAuth token store \S*\[redacted\]/, String(discovered.unavailable));
      assert.match(JSON.stringify(answers['agent_tools_search {"query":"n8n workflows"}']), /token store \S*\[redacted\]/);
      assert.match(JSON.stringify(answers['agent_tools_exec {"command":"n8n discover workflows"}']), /token store \S*\[redacted\]/);
      const text = JSON.stringify(answers) + server.stderr();
      // Neither the token nor a beginning of it long enough to use (the redactor masks cut beginnings too).
      assert.ok(!text.includes(jwt.slice(0, 24)), `the token leaked: ${text.slice(text.indexOf(jwt.slice(0, 24)) - 200, text.indexOf(jwt.slice(0, 24)) + 100)}`);
    } finally {
      await server.close();
    }
  });

  it("with only the API key (no MCP token, no token store) the skills run and MCP answers name both ways to configure it", async () => {
    const n8n = await startN8nStandIn({ workflows: 2 });
    // The default store (N8N_MCP_TOKEN_STORE unset).
    const config = path.join(tmp, "absent-config");
    const store = path.join(config, "agent-tools", "n8n", "tokens.json");
    const env: Record<string, string | undefined> = envFor(n8n, { XDG_CONFIG_HOME: config, HOME: path.join(tmp, "absent-home") });
    delete env.N8N_MCP_TOKEN;
    delete env.N8N_MCP_TOKEN_STORE;
    const server = await connect(PLUGIN, env as Record<string, string>);
    try {
      const { result } = await skill(server, "find-workflows");
      assert.equal(result.total, 2, "a REST skill needs only N8N_API_KEY");
      // Discover still answers the skills, saying in one line why the tools are missing.
      const discovered = (await callJson(server.client, "agent_tools_n8n_discover", {})).payload;
      assert.equal(discovered.ok, true);
      assert.match(String(discovered.unavailable), new RegExp(`the OAuth token store ${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} does not exist`));
      // A tool call answers with the whole error and how to fix it.
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.match(payload.error?.message ?? "", new RegExp(`the OAuth token store ${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} does not exist \\(or set N8N_MCP_TOKEN to an access token of the MCP server instead\\)`));
      assert.match(payload.error?.hint ?? "", /^Tell the user: Create or rewrite .*tokens\.json with a token set of this MCP server \(JSON \{"access_token".*or set N8N_MCP_TOKEN/);
      assert.doesNotMatch(JSON.stringify([discovered, payload]), /sign in/);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("a refused N8N_MCP_TOKEN is named, with the hint to set it", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const server = await connect(PLUGIN, envFor(n8n, { N8N_MCP_TOKEN: "n8n_mcp_wrong_token_123456" }));
    try {
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.match(payload.error?.message ?? "", /refused the credentials \(HTTP 401\).*check \$N8N_MCP_TOKEN/);
      assert.match(payload.error?.hint ?? "", /^Tell the user: Set N8N_MCP_TOKEN in the environment of the agent-tools server/);
      assert.ok(!JSON.stringify(payload).includes("n8n_mcp_wrong_token_123456"));
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("N8N_MCP_URL without /mcp-server/ in its path: the skills ask for N8N_INSTANCE_URL and send the key nowhere", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const env: Record<string, string | undefined> = envFor(n8n, { N8N_MCP_URL: `${n8n.origin}/mcp` });
    delete env.N8N_INSTANCE_URL;
    const server = await connect(PLUGIN, env as Record<string, string>);
    try {
      const { payload } = await skill(server, "find-workflows");
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.match(payload.error?.message ?? "", /N8N_MCP_URL has no \/mcp-server\/ in its path.*Set N8N_INSTANCE_URL to the n8n instance/);
      const project = await skill(server, "personal-project");
      assert.match(project.payload.error?.message ?? "", /search_projects/, "personal-project asks only the MCP tool");
      assert.equal(n8n.requests.length, 0, "no REST request was sent to the MCP URL's origin");
    } finally {
      await server.close();
    }
    const both = await connect(PLUGIN, envFor(n8n, { N8N_MCP_URL: `${n8n.origin}/mcp` }) as Record<string, string>);
    try {
      assert.equal((await skill(both, "find-workflows")).result.total, 1, "with N8N_INSTANCE_URL beside it the skills run");
    } finally {
      await both.close();
      await n8n.close();
    }
  });

  it("a malformed N8N_INSTANCE_URL is named in the problem that skips the plugin, without its value", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const server = await connect(PLUGIN, envFor(n8n, { N8N_INSTANCE_URL: "n8n.example.com" }));
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      const problems = JSON.stringify(payload.problems);
      assert.match(problems, /N8N_INSTANCE_URL is not an http:\/\/ or https:\/\/ URL; set it to the full address, e.g. https:\/\/n8n.example.com/);
      assert.doesNotMatch(problems, /adapter\.url/);
    } finally {
      await server.close();
      await n8n.close();
    }
  });
});

describe("n8n plugin: MCP endpoint unreachable", () => {
  const SKILLS = 14;

  it("N8N_MCP_URL on a closed port: discover answers the skills with why the tools are missing, REST skills run, the hint names N8N_MCP_URL", async () => {
    const n8n = await startN8nStandIn({ workflows: 3 });
    const server = await connect(PLUGIN, envFor(n8n, { N8N_MCP_URL: `http://127.0.0.1:${await freePort()}/mcp-server/http` }));
    try {
      const listed = (await callJson(server.client, "agent_tools_n8n_discover", { limit: 50 })).payload;
      assert.equal(listed.ok, true, JSON.stringify(listed));
      assert.deepEqual(listed.totals, { tools: 0, skills: SKILLS });
      assert.equal((listed.matches as { kind?: string }[]).length, SKILLS);
      assert.ok((listed.matches as { kind?: string }[]).every((m) => m.kind === "skill"));
      assert.match(String(listed.unavailable), /MCP server 'n8n'.*ECONNREFUSED/);
      assert.ok(!String(listed.unavailable).includes("\n"), "one line");
      assert.match(String(listed.note), /the tools of plugin 'n8n' could not be listed \(why: under 'unavailable'\), so only its skills are answered/);

      const found = (await callJson(server.client, "agent_tools_n8n_discover", { query: "delete workflow" })).payload;
      assert.equal(found.ok, true);
      assert.equal((found.matches as { name: string }[])[0]?.name, "delete-workflow");
      assert.match(String(found.unavailable), /ECONNREFUSED/);

      const { result } = await skill(server, "find-workflows");
      assert.equal(result.total, 3, "a REST skill runs with the MCP endpoint down");

      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.equal(payload.error?.code, "UPSTREAM_ERROR");
      assert.match(payload.error?.hint ?? "", /start the server, or correct N8N_MCP_URL in the server's environment/);
      assert.doesNotMatch(JSON.stringify([listed, payload]), /adapter\.url/);
      assertNoSecrets(n8n, server, listed, found, payload);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("N8N_INSTANCE_URL on a closed port: discover still answers the skills; the hint names N8N_INSTANCE_URL, not adapter.url", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const server = await connect(PLUGIN, envFor(n8n, { N8N_INSTANCE_URL: `http://127.0.0.1:${await freePort()}` }));
    try {
      const listed = (await callJson(server.client, "agent_tools_n8n_discover", {})).payload;
      assert.equal(listed.ok, true, JSON.stringify(listed));
      assert.deepEqual(listed.totals, { tools: 0, skills: SKILLS });
      assert.match(String(listed.unavailable), /ECONNREFUSED/);
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.match(payload.error?.hint ?? "", /start the server, or correct N8N_INSTANCE_URL in the server's environment/);
      assert.doesNotMatch(JSON.stringify(payload), /adapter\.url/);
    } finally {
      await server.close();
      await n8n.close();
    }
  });

  it("N8N_INSTANCE_URL at a web page: the hint asks for the instance's base address, not an MCP endpoint", async () => {
    const n8n = await startN8nStandIn({ workflows: 1 });
    const page = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>"));
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    const { port } = page.address() as AddressInfo;
    const server = await connect(PLUGIN, envFor(n8n, { N8N_INSTANCE_URL: `http://127.0.0.1:${port}` }));
    try {
      const { payload } = await callJson(server.client, "agent_tools_n8n_call", { toolName: "search_workflows", arguments: {} });
      assert.match(payload.error?.message ?? "", /did not answer as an MCP server .*check N8N_INSTANCE_URL in the server's environment/, JSON.stringify(payload));
      assert.match(payload.error?.hint ?? "", /^Set N8N_INSTANCE_URL in the server's environment to the n8n instance's base address \(e\.g\. https:\/\/n8n\.example\.com: the plugin adds \/mcp-server\/http\)/);
      assert.doesNotMatch(payload.error?.hint ?? "", /often ending in \/mcp/);
    } finally {
      await server.close();
      await n8n.close();
      await new Promise((resolve) => page.close(resolve));
    }
  });
});

describe("n8n plugin: skills", () => {
  let n8n: N8nStandIn;
  let server: Connected;
  const seen: unknown[] = [];
  const run = async (name: string, args: Record<string, unknown> = {}) => {
    const out = await skill(server, name, args);
    seen.push(out.payload);
    return out;
  };
  before(async () => {
    n8n = await startN8nStandIn({ workflows: 250 });
    server = await connect(PLUGIN, envFor(n8n));
  });
  after(async () => {
    assertNoSecrets(n8n, server, ...seen);
    await server.close();
    await n8n.close();
  });

  it("find-workflows pages the whole REST catalog and filters it", async () => {
    const all = await run("find-workflows", { pageSize: 100 });
    assert.equal(all.result.total, 250);
    assert.equal(all.result.restPages, 3);
    assert.equal(all.result.pages, 3);
    assert.deepEqual(all.result.next, { page: 2 });
    const active = await run("find-workflows", { active: true, page: 2, pageSize: 50 });
    assert.equal(active.result.total, 83);
    assert.equal((active.result.workflows as unknown[]).length, 33);
    assert.ok((active.result.workflows as { active: boolean }[]).every((w) => w.active));
    assert.ok(n8n.requests.some((r) => r.path === "/workflows" && r.search.includes("active=true")));
    const named = await run("find-workflows", { namePattern: "workflow 00?0" });
    assert.equal(named.result.total, 9);
  });

  it("find-workflows: an upstream error on page 2, bad arguments", async () => {
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 500, message: "database is locked", skip: 1 });
    const failed = await run("find-workflows");
    assert.equal(failed.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(failed.payload.error?.message ?? "", /page 2 of \/workflows failed after 100 items: .*500.*database is locked/);
    const bad = await run("find-workflows", { pageSize: 0 });
    assert.equal(bad.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(bad.payload.error?.message ?? "", /pageSize/);
    const unknown = await run("find-workflows", { limit: 10 });
    assert.match(unknown.payload.error?.message ?? "", /unknown argument 'limit'.*valid: active, namePattern, page, pageSize/);
  });

  it("find-workflows: a page that is not JSON is quoted, a repeated cursor stops the scan, repeated ids count once", async () => {
    // Each case changes pageSize: the loop breaker stops the third identical failing call.
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, contentType: "text/html", body: "<html>\n  <body>Log in to n8n</body></html>" });
    const html = await run("find-workflows", { pageSize: 11 });
    assert.equal(html.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(html.payload.error?.message ?? "", /GET \/workflows \(page 1\) answered text that is not JSON, beginning "<html> <body>Log in to n8n<\/body><\/html>"; check that N8N_INSTANCE_URL points at n8n itself/);
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, body: '{"data": [{"id": "wf0001"' });
    const cut = await run("find-workflows", { pageSize: 12 });
    // Labelled JSON, so the runtime's REST client itself refuses it (adapters/rest), before the skill's own check.
    assert.match(cut.payload.error?.message ?? "", /answered HTTP 200 with Content-Type 'application\/json' but a body that is not JSON: \{"data": \[\{"id": "wf0001"/);
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, body: '{"data": {"id": "wf0001"}}' });
    const notList = await run("find-workflows", { pageSize: 13 });
    assert.match(notList.payload.error?.message ?? "", /answered JSON without a 'data' list \(its keys: data\)/);
    const before = n8n.requests.length;
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, body: '{"data": [{"id": "wf0001", "name": "A"}], "nextCursor": "same"}', times: 2 });
    const looping = await run("find-workflows", { pageSize: 14 });
    assert.equal(looping.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(looping.payload.error?.message ?? "", /GET \/workflows: the server repeated a page cursor on page 2 \(after 1 distinct items\)/);
    assert.equal(n8n.requests.length - before, 2, "stopped at the first repeated cursor, not after 200 pages");
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, body: '{"data": [{"id": "wf0001", "name": "A"}, {"id": "wf0001", "name": "A"}, {"id": 7, "name": "B"}], "nextCursor": "c2"}' });
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 200, body: '{"data": [{"id": "7", "name": "B"}, {"id": "wf0003", "name": "C"}]}' });
    const repeated = await run("find-workflows", { pageSize: 15 });
    assert.deepEqual((repeated.result.workflows as { id: unknown }[]).map((w) => w.id), ["wf0001", 7, "wf0003"]);
    assert.equal(repeated.result.total, 3);
  });

  it("ids: '.' and '..' are refused naming the argument; a numeric workflowId is accepted as ids are; find-node-types takes the instance's url", async () => {
    for (const [name, args, argument] of [
      ["delete-workflow", { id: ".." }, "id"],
      ["delete-credential", { id: "." }, "id"],
      ["data-table-crud", { operation: "delete", dataTableId: "..", rowIds: ["1"] }, "dataTableId"],
    ] as const) {
      const { payload } = await run(name, args);
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", name);
      assert.match(payload.error?.message ?? "", new RegExp(`'${argument}' is '\\.{1,2}', which is not an id; give the id of the item`), name);
    }
    n8n.state.executions.push({ id: "x-num-1", workflowId: "12", status: "error" }, { id: "x-num-2", workflowId: "12", status: "error" });
    const audited = await run("audit-workflows", { mode: "executions", workflowId: 12 });
    assert.equal(audited.payload.ok, true, JSON.stringify(audited.payload));
    assert.ok(n8n.requests.some((r) => r.path === "/executions" && r.search.includes("workflowId=12")));
    const deleted = await run("delete-executions-bulk", { workflowId: 12 });
    assert.equal(deleted.result.deleted, 2, JSON.stringify(deleted.payload));
    const fraction = await run("delete-executions-bulk", { workflowId: 1.5 });
    assert.equal(fraction.payload.error?.code, "ARG_VALIDATION_FAILED");
    const withUrl = await run("find-node-types", { queries: ["slack"], url: `${n8n.origin}/` });
    assert.equal(withUrl.result.mode, "queries", JSON.stringify(withUrl.payload));
    const foreign = await run("find-node-types", { queries: ["slack"], url: "https://evil.example.com" });
    assert.match(foreign.payload.error?.message ?? "", /not the configured n8n instance/);
  });

  it("audit-workflows default mode finds risky configuration", async () => {
    n8n.state.workflows.push(
      makeWorkflow(9001, { name: "Open webhook", active: true, nodes: [{ name: "Webhook", type: "n8n-nodes-base.webhook", parameters: { path: "x" } }], connections: {} }),
      makeWorkflow(9002, { name: "No trigger", active: true, nodes: [{ name: "Set", type: "n8n-nodes-base.set", parameters: {} }], connections: {} }),
      makeWorkflow(9003, { name: "Inline key", active: false, nodes: [TRIGGER_NODE, { name: "HTTP", type: "n8n-nodes-base.httpRequest", parameters: { headerParameters: { parameters: [{ name: "Authorization", value: "Bearer sk-live" }] } } }], connections: {} }),
    );
    const { result } = await run("audit-workflows", { namePattern: "*e*" });
    const rules = (result.results as { rule: string; workflow: string }[]).map((f) => `${f.rule}:${f.workflow}`).sort();
    assert.deepEqual(rules, ["active-without-trigger:No trigger", "credential-in-parameters:Inline key", "webhook-without-authentication:Open webhook"]);
    assert.deepEqual(result.bySeverity, { high: 2, medium: 1, low: 0 });
  });

  it("audit-workflows nativeAudit, executions and credentials modes", async () => {
    const native = await run("audit-workflows", { mode: "nativeAudit", categories: ["credentials", "nodes"], daysAbandonedWorkflow: 30 });
    assert.deepEqual(native.result.reports, ["Credentials Risk Report", "Nodes Risk Report"]);
    n8n.state.executions.push(
      { id: "e1", workflowId: "wf0001", status: "error", startedAt: "2026-03-01T00:00:00Z", stoppedAt: "2026-03-01T00:00:01Z" },
      { id: "e2", workflowId: "wf0001", status: "error", startedAt: "2026-03-02T00:00:00Z", stoppedAt: "2026-03-02T00:00:01Z" },
      { id: "e3", workflowId: "wf0002", status: "error", startedAt: "2026-03-03T00:00:00Z" },
      { id: "e4", workflowId: "wf0002", status: "success", startedAt: "2026-03-03T00:00:00Z" },
    );
    const executions = await run("audit-workflows", { mode: "executions" });
    assert.equal(executions.result.executionsRead, 3);
    assert.deepEqual((executions.result.byWorkflow as { workflowId: string; count: number }[]).map((g) => [g.workflowId, g.count]), [["wf0001", 2], ["wf0002", 1]]);
    n8n.state.credentials.push({ id: "c1", name: "Slack", type: "slackApi", data: {} }, { id: "c2", name: "Unused", type: "slackApi", data: {} });
    n8n.state.workflows[0]!.nodes.push({ name: "Slack", type: "n8n-nodes-base.slack", parameters: {}, credentials: { slackApi: { id: "c1", name: "Slack" } } });
    const credentials = await run("audit-workflows", { mode: "credentials" });
    assert.deepEqual(credentials.result.unusedCredentials, [{ id: "c2", name: "Unused", type: "slackApi" }]);
    assert.equal(credentials.result.source, "rest");
    n8n.fail({ method: "GET", path: /^\/credentials$/, status: 405, message: "GET method not allowed" });
    const viaMcp = await run("audit-workflows", { mode: "credentials" });
    assert.equal(viaMcp.result.source, "mcp", "an API without GET /credentials falls back to list_credentials");
    assert.deepEqual(viaMcp.result.unusedCredentials, [{ id: "c2", name: "Unused", type: "slackApi" }]);
    n8n.fail({ method: "GET", path: /^\/workflows$/, status: 500, message: "workflows unavailable" });
    const broken = await run("audit-workflows", { mode: "credentials" });
    assert.match(broken.payload.error?.message ?? "", /GET \/api\/v1\/workflows\?limit=100 answered HTTP 500.*workflows unavailable/);
    n8n.state.executions.length = 0;
    n8n.state.credentials.length = 0;
  });

  it("audit-workflows: unknown mode, another mode's argument, nested arguments, an upstream error", async () => {
    const mode = await run("audit-workflows", { mode: "security" });
    assert.match(mode.payload.error?.message ?? "", /unknown mode "security"; valid modes: default, nativeAudit, executions, credentials/);
    const other = await run("audit-workflows", { mode: "nativeAudit", status: "error" });
    assert.match(other.payload.error?.message ?? "", /unknown argument 'status' for audit-workflows mode 'nativeAudit'.*valid: categories, daysAbandonedWorkflow/);
    const nested = await run("audit-workflows", { mode: "executions", options: { status: "error" } });
    assert.match(nested.payload.error?.message ?? "", /'options' looks like nested arguments.*valid: status, workflowId, limit/);
    const category = await run("audit-workflows", { mode: "nativeAudit", categories: ["secrets"] });
    assert.match(category.payload.error?.message ?? "", /unknown audit category 'secrets'; valid: credentials, database/);
    n8n.fail({ method: "POST", path: /^\/audit$/, status: 500, message: "audit crashed" });
    const upstream = await run("audit-workflows", { mode: "nativeAudit" });
    assert.equal(upstream.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(upstream.payload.error?.message ?? "", /POST \/api\/v1\/audit answered HTTP 500.*audit crashed/);
  });

  it("insert-and-verify-datatable-row: inserted and read back; read-back failure; bad arguments", async () => {
    n8n.state.dataTables.push({ id: "dt-1", name: "leads", columns: [{ name: "email", type: "string" }, { name: "score", type: "number" }], rows: [], nextRowId: 1 });
    const ok = await run("insert-and-verify-datatable-row", { dataTableId: "dt-1", row: { email: "a@b.c", score: 3 } });
    assert.equal(ok.result.verified, true);
    assert.equal(ok.result.inserted, 1);
    assert.equal(n8n.state.dataTables[0]!.rows.length, 1);
    const many = await run("insert-and-verify-datatable-row", { dataTableId: "dt-1", rows: [{ email: "x@y.z", score: 1 }, { email: "q@r.s", score: 2 }] });
    assert.equal(many.result.inserted, 2);
    assert.equal(many.result.verified, true);
    n8n.fail({ method: "GET", path: /^\/data-tables\/dt-1\/rows$/, status: 502, message: "Bad Gateway" });
    const midway = await run("insert-and-verify-datatable-row", { dataTableId: "dt-1", row: { email: "m@n.o", score: 5 } });
    assert.equal(midway.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(midway.payload.error?.message ?? "", /data table row 4 was created, but reading it back failed.*502/);
    const both = await run("insert-and-verify-datatable-row", { dataTableId: "dt-1", row: { email: "a" }, rows: [] });
    assert.match(both.payload.error?.message ?? "", /exactly one of 'row'.*or 'rows'/);
    const column = await run("insert-and-verify-datatable-row", { dataTableId: "dt-1", row: { mail: "a" } });
    assert.match(column.payload.error?.message ?? "", /400.*unknown column name 'mail'/);
    const missing = await run("insert-and-verify-datatable-row", { dataTableId: "dt-404", row: { email: "a" } });
    assert.match(missing.payload.error?.message ?? "", /404.*not found/);
  });

  it("data-table-crud: read, update and delete verified by reading back; errors", async () => {
    const read = await run("data-table-crud", { operation: "read", dataTableId: "dt-1", filter: { type: "and", filters: [{ columnName: "score", condition: "gt", value: 1 }] } });
    assert.equal(read.result.count, 3);
    const created = await run("data-table-crud", { operation: "create", dataTableId: "dt-1", row: { email: "new@x.y", score: 9 } });
    assert.equal(created.result.verified, true);
    const id = (created.result.rows as { id: number }[])[0]!.id;
    const updated = await run("data-table-crud", { operation: "update", dataTableId: "dt-1", rowIds: [String(id)], data: { score: 10 } });
    assert.equal(updated.result.updated, 1);
    assert.equal(updated.result.verified, true);
    assert.equal(n8n.state.dataTables[0]!.rows.find((r) => r.id === id)?.score, 10);
    const deleted = await run("data-table-crud", { operation: "delete", dataTableId: "dt-1", rowIds: [String(id)] });
    assert.equal(deleted.result.deleted, 1);
    assert.equal(deleted.result.verified, true);
    assert.equal(n8n.state.dataTables[0]!.rows.some((r) => r.id === id), false);
    n8n.fail({ method: "GET", path: /^\/data-tables\/dt-1\/rows$/, status: 500, message: "read failed" });
    const midway = await run("data-table-crud", { operation: "update", dataTableId: "dt-1", rowIds: ["1"], data: { score: 4 } });
    assert.match(midway.payload.error?.message ?? "", /updated row id\(s\) 1 but reading them back failed/);
    const noOp = await run("data-table-crud", { dataTableId: "dt-1" });
    assert.match(noOp.payload.error?.message ?? "", /'operation' must be one of create, read, update, delete/);
    const everything = await run("data-table-crud", { operation: "delete", dataTableId: "dt-1" });
    assert.match(everything.payload.error?.message ?? "", /never touches every row/);
    const wrong = await run("data-table-crud", { operation: "read", dataTableId: "dt-1", data: { a: 1 } });
    assert.match(wrong.payload.error?.message ?? "", /unknown argument 'data' for data-table-crud operation 'read'/);
  });

  it("create-and-verify-workflow from JSON and from code, unpublished; errors", async () => {
    const fromJson = await run("create-and-verify-workflow", {
      workflow: { name: "Made by skill", nodes: [TRIGGER_NODE, { name: "Set", type: "n8n-nodes-base.set", parameters: {} }], connections: { "Schedule Trigger": { main: [[{ node: "Set", type: "main", index: 0 }]] } } },
    });
    assert.equal(fromJson.result.created, true);
    assert.equal(fromJson.result.active, false);
    assert.equal(fromJson.result.verified, true, JSON.stringify(fromJson.result));
    const fromCode = await run("create-and-verify-workflow", { code: "workflow('x').add(trigger())", name: "From SDK" });
    assert.equal(fromCode.result.created, true);
    assert.equal(fromCode.result.name, "From SDK");
    assert.deepEqual((fromCode.result.validation as { valid: boolean }).valid, true);
    const invalid = await run("create-and-verify-workflow", { code: "syntax error here" });
    assert.equal(invalid.result.created, false);
    n8n.fail({ method: "GET", path: /^\/workflows\/wf-new-/, status: 500, message: "boom" });
    const midway = await run("create-and-verify-workflow", { workflow: { name: "Read fails", nodes: [TRIGGER_NODE], connections: {} } });
    assert.match(midway.payload.error?.message ?? "", /workflow wf-new-\d+ was created, but reading it back failed/);
    const both = await run("create-and-verify-workflow", { code: "x", workflow: { nodes: [] } });
    assert.match(both.payload.error?.message ?? "", /exactly one of 'code'.*or 'workflow'/);
  });

  it("find-node-types: queries, nodeIds, not both, an upstream error", async () => {
    const searched = await run("find-node-types", { queries: ["slack"] });
    assert.equal(searched.result.mode, "queries");
    assert.match(JSON.stringify(searched.result.results), /n8n-nodes-base.slack/);
    const exact = await run("find-node-types", { nodeIds: ["n8n-nodes-base.httpRequest"] });
    assert.match(JSON.stringify(exact.result.definitions), /httpRequest/);
    const both = await run("find-node-types", { queries: ["a"], nodeIds: ["b"] });
    assert.match(both.payload.error?.message ?? "", /not both/);
    const unknown = await run("find-node-types", { nodeIds: ["acme.unknown"] });
    assert.equal(unknown.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(unknown.payload.error?.message ?? "", /tool 'get_node_types' answered with an error: Unknown node type/);
  });

  it("create-credential: schema, create, OAuth2 consent note, errors; delete-credential", async () => {
    const schema = await run("create-credential", { type: "slackApi" });
    assert.deepEqual((schema.result.schema as { required: string[] }).required, ["accessToken"]);
    const created = await run("create-credential", { type: "slackApi", name: "Team Slack", data: { accessToken: "xoxb-secret-value" } });
    assert.equal(created.result.created, true);
    assert.ok(!JSON.stringify(created.payload).includes("xoxb-secret-value"));
    const oauth = await run("create-credential", { type: "googleSheetsOAuth2Api" });
    assert.match(String(oauth.result.oauth2), /a person must open it in the n8n editor/);
    const half = await run("create-credential", { type: "slackApi", name: "No data" });
    assert.match(half.payload.error?.message ?? "", /give both 'name' and 'data'.*missing 'data'/);
    const unknownType = await run("create-credential", { type: "nopeApi" });
    assert.match(unknownType.payload.error?.message ?? "", /404.*Credential type/);
    const removed = await run("delete-credential", { id: String(created.result.id) });
    assert.equal(removed.result.deleted, true);
    const again = await run("delete-credential", { id: String(created.result.id) });
    assert.match(again.payload.error?.message ?? "", /404/);
    const noId = await run("delete-credential", {});
    assert.match(noId.payload.error?.message ?? "", /'id' is required/);
  });

  it("delete-workflow and delete-execution: success, 404, missing id", async () => {
    const gone = await run("delete-workflow", { id: "wf0250" });
    assert.equal(gone.result.deleted, true);
    assert.equal(n8n.state.workflows.some((w) => w.id === "wf0250"), false);
    const again = await run("delete-workflow", { id: "wf0250" });
    assert.match(again.payload.error?.message ?? "", /DELETE \/api\/v1\/workflows\/wf0250 answered HTTP 404/);
    assert.match((await run("delete-workflow", {})).payload.error?.message ?? "", /'id' is required/);
    n8n.state.executions.push({ id: "e9", workflowId: "wf0001", status: "success" });
    const exec = await run("delete-execution", { id: "e9" });
    assert.equal(exec.result.deleted, true);
    assert.match((await run("delete-execution", { id: "e9" })).payload.error?.message ?? "", /404/);
    assert.match((await run("delete-execution", { id: 12, extra: 1 })).payload.error?.message ?? "", /unknown argument 'extra'/);
  });

  it("delete-workflows-bulk: needs a filter, dry run, deletes, reports a failure mid-way", async () => {
    const none = await run("delete-workflows-bulk", {});
    assert.match(none.payload.error?.message ?? "", /never deletes every workflow by default/);
    const dry = await run("delete-workflows-bulk", { namePattern: "Workflow 02*", dryRun: true });
    assert.equal(dry.result.matched, 50);
    assert.equal(n8n.state.workflows.length, 255, "nothing deleted in a dry run");
    n8n.fail({ method: "DELETE", path: /^\/workflows\//, status: 500, message: "row locked", skip: 2 });
    const real = await run("delete-workflows-bulk", { namePattern: "Workflow 024?" });
    assert.equal(real.result.matched, 10);
    assert.equal(real.result.deleted, 9);
    assert.equal(real.result.complete, false);
    assert.match(JSON.stringify(real.result.failed), /500.*row locked/);
    const inactiveOnly = await run("delete-workflows-bulk", { active: false, namePattern: "Workflow 023*" });
    assert.ok((inactiveOnly.result.deletedWorkflows as { active: boolean }[]).every((w) => !w.active));
  });

  it("delete-executions-bulk: ids or a filter, concurrent, a failure mid-way, never everything", async () => {
    for (let i = 0; i < 20; i++) n8n.state.executions.push({ id: `x${i}`, workflowId: i < 15 ? "wf0001" : "wf0002", status: i % 2 ? "error" : "success" });
    n8n.fail({ method: "DELETE", path: /^\/executions\//, status: 503, message: "busy", skip: 3 });
    const byWorkflow = await run("delete-executions-bulk", { workflowId: "wf0001", concurrency: 4 });
    assert.equal(byWorkflow.result.matched, 15);
    assert.equal(byWorkflow.result.deleted, 14);
    assert.equal((byWorkflow.result.failed as unknown[]).length, 1);
    const byIds = await run("delete-executions-bulk", { ids: ["x15", "x16"] });
    assert.equal(byIds.result.deleted, 2);
    const everything = await run("delete-executions-bulk", {});
    assert.match(everything.payload.error?.message ?? "", /never deletes every execution/);
    const mixed = await run("delete-executions-bulk", { ids: ["x1"], status: "error" });
    assert.match(mixed.payload.error?.message ?? "", /not both/);
  });

  it("delete-data-tables-bulk: by name pattern or ids, a failure, never everything", async () => {
    n8n.state.dataTables.push(
      { id: "dt-t1", name: "tmp_a", columns: [], rows: [], nextRowId: 1 },
      { id: "dt-t2", name: "tmp_b", columns: [], rows: [], nextRowId: 1 },
    );
    const dry = await run("delete-data-tables-bulk", { namePattern: "tmp_*", dryRun: true });
    assert.equal(dry.result.matched, 2);
    const done = await run("delete-data-tables-bulk", { namePattern: "tmp_*" });
    assert.equal(done.result.deleted, 2);
    assert.deepEqual(n8n.state.dataTables.map((t) => t.id), ["dt-1"]);
    const missing = await run("delete-data-tables-bulk", { ids: ["dt-404"] });
    assert.equal(missing.result.complete, false);
    assert.match(JSON.stringify(missing.result.failed), /404/);
    const everything = await run("delete-data-tables-bulk", {});
    assert.match(everything.payload.error?.message ?? "", /never deletes every data table/);
  });
});

/** The audit file's entries (none when nothing was written yet). */
async function auditEntries(file: string): Promise<Record<string, unknown>[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, "utf8")).trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("n8n plugin: skills' REST writes pass the write gate", () => {
  it("HTTP gateway, a write:false identity: write skills are FORBIDDEN and change nothing, read skills work, and the refusals are audited", async () => {
    const n8n = await startN8nStandIn({ workflows: 3 });
    n8n.state.credentials.push({ id: "c1", name: "Slack", type: "slackApi", data: {} });
    const dir = await mkdtemp(path.join(tmp, "gateway-"));
    const audit = path.join(dir, "audit.jsonl");
    const token = "n8n-reader-token-0123456789abcdef0123456789";
    const config = path.join(dir, "team.json");
    await writeFile(config, JSON.stringify({ team: { identities: [{ name: "reader", tokenSha256: hashToken(token), plugins: ["n8n"], write: false }] } }));
    const server = await startHttp({ ...envFor(n8n), AGENT_TOOLS_PLUGINS_DIR: PLUGIN, AGENT_TOOLS_AUDIT: audit }, ["--config", config]);
    const { client } = await httpClient(server.url, { authorization: `Bearer ${token}` });
    const seen: unknown[] = [];
    const run = async (name: string, args: Record<string, unknown>) => {
      const { payload } = await callJson(client, "agent_tools_n8n_run_skill", { skill: name, arguments: args });
      seen.push(payload);
      return payload;
    };
    try {
      for (const [name, args] of [
        ["delete-workflow", { id: "wf0002" }],
        ["delete-credential", { id: "c1" }],
        ["create-credential", { type: "slackApi", name: "New", data: { accessToken: "xoxb-not-sent" } }],
        ["delete-workflows-bulk", { namePattern: "Workflow*" }],
      ] as const) {
        const refused = await run(name, args);
        assert.equal(refused.error?.code, "FORBIDDEN", `${name}: ${JSON.stringify(refused)}`);
        assert.match(refused.error?.message ?? "", new RegExp(`skill '${name}' calls 'n8nRest\\.request', which changes data and identity 'reader' may use the plugins 'n8n', read-only`));
      }
      assert.deepEqual(n8n.state.workflows.map((w) => w.id), ["wf0001", "wf0002", "wf0003"], "no workflow was deleted");
      assert.deepEqual(n8n.state.credentials.map((c) => c.id), ["c1"], "no credential was deleted or made");
      // Reads through the same REST client still work: listing, GET, and the audit report's POST.
      const found = await run("find-workflows", {});
      assert.equal(found.ok, true, JSON.stringify(found));
      assert.equal((found.result as { total: number }).total, 3);
      const native = await run("audit-workflows", { mode: "nativeAudit", categories: ["credentials"] });
      assert.equal(native.ok, true, JSON.stringify(native));
      const entries = await auditEntries(audit);
      assert.deepEqual(
        entries.map((e) => [e.identity, e.operation, e.tool, e.outcome]),
        ["delete-workflow", "delete-credential", "create-credential", "delete-workflows-bulk"].map((name) => ["reader", "run_skill", name, "FORBIDDEN"]),
        "each refused write skill is audited once; the read skills are not",
      );
      assert.ok(!JSON.stringify(entries).includes("xoxb-not-sent"), "the audit keeps no argument values");
      const said = JSON.stringify(seen) + server.stderr() + JSON.stringify(entries);
      assert.ok(!said.includes(n8n.apiKey) && !said.includes(n8n.mcpToken), "no secret in answers, stderr or the audit");
    } finally {
      await client.close();
      await server.stop();
      await n8n.close();
    }
  });

  it("stdio: a skill's REST write is in the audit log as the skill's run; a read skill is not", async () => {
    const n8n = await startN8nStandIn({ workflows: 3 });
    const audit = path.join(await mkdtemp(path.join(tmp, "stdio-")), "audit.jsonl");
    const server = await connect(PLUGIN, envFor(n8n, { AGENT_TOOLS_AUDIT: audit }));
    try {
      assert.equal((await skill(server, "find-workflows")).isError, false);
      const created = await skill(server, "create-credential", { type: "slackApi", name: "S", data: { accessToken: "xoxb-audit" } });
      assert.equal(created.isError, false, JSON.stringify(created.payload));
      const deleted = await skill(server, "delete-workflow", { id: "wf0001" });
      assert.equal(deleted.isError, false, JSON.stringify(deleted.payload));
      const entries = await auditEntries(audit);
      assert.deepEqual(
        entries.map((e) => [e.identity, e.operation, e.tool, e.outcome]),
        [
          ["local", "run_skill", "create-credential", "ok"],
          ["local", "run_skill", "delete-workflow", "ok"],
        ],
      );
      assert.deepEqual(entries[0]?.arguments, { type: "<string 8>", name: "<string 1>", data: { accessToken: "<string 10>" } });
    } finally {
      await server.close();
      await n8n.close();
    }
  });
});

const TRIGGER_NODE = { name: "Schedule Trigger", type: "n8n-nodes-base.scheduleTrigger", parameters: {} };

describe("n8n plugin: robustness", () => {
  let n8n: N8nStandIn;
  let server: Connected;
  before(async () => {
    n8n = await startN8nStandIn({ workflows: 2 });
    server = await connect(PLUGIN, envFor(n8n, { N8N_TIMEOUT_MS: "1000" }));
  });
  after(async () => {
    await server.close();
    await n8n.close();
  });

  it("a glob with many stars is matched at once and the server stays responsive; an over-long pattern is refused", async () => {
    n8n.state.workflows.push(makeWorkflow(9100, { name: "a".repeat(60) }), makeWorkflow(9101, { name: `${"a".repeat(40)}b` }));
    const started = Date.now();
    const found = await skill(server, "find-workflows", { namePattern: `${"*a".repeat(12)}*b` });
    assert.ok(Date.now() - started < 10_000, `answered in ${Date.now() - started} ms`);
    assert.deepEqual((found.result.workflows as { id: string }[]).map((w) => w.id), ["wf9101"]);
    const help = await callJson(server.client, "agent_tools_help");
    assert.equal(help.isError, false);
    const exact = await skill(server, "find-workflows", { namePattern: "A?A*b" });
    assert.equal(exact.result.total, 1, "? is one character, * any run, case-insensitive, over the whole name");
    for (const name of ["find-workflows", "delete-workflows-bulk", "delete-data-tables-bulk"]) {
      const long = await skill(server, name, { namePattern: "*".repeat(201) });
      assert.equal(long.payload.error?.code, "ARG_VALIDATION_FAILED", name);
      assert.match(long.payload.error?.message ?? "", /'namePattern' is 201 characters; at most 200 are accepted/, name);
    }
    const audit = await skill(server, "audit-workflows", { namePattern: "x".repeat(300) });
    assert.match(audit.payload.error?.message ?? "", /at most 200/);
    assert.equal(n8n.state.workflows.length, 4, "nothing was deleted");
  });

  it("data-table-crud refuses update and delete with an empty filter list; no row changes", async () => {
    n8n.state.dataTables.push({ id: "dt-e", name: "people", columns: [{ name: "email", type: "string" }, { name: "score", type: "number" }], rows: [{ id: 1, email: "a@x", score: 1 }, { id: 2, email: "b@x", score: 2 }], nextRowId: 3 });
    const filter = { type: "and", filters: [] };
    const update = await skill(server, "data-table-crud", { operation: "update", dataTableId: "dt-e", filter, data: { score: 99 } });
    assert.equal(update.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(update.payload.error?.message ?? "", /'filter\.filters' is empty, which would update every row.*give 'rowIds', or at least one condition/);
    const remove = await skill(server, "data-table-crud", { operation: "delete", dataTableId: "dt-e", filter });
    assert.match(remove.payload.error?.message ?? "", /'filter\.filters' is empty, which would delete every row/);
    assert.deepEqual(n8n.state.dataTables[0]!.rows.map((r) => r.score), [1, 2]);
    const read = await skill(server, "data-table-crud", { operation: "read", dataTableId: "dt-e", filter });
    assert.equal(read.result.count, 2, "a read with no condition reads every row, as without a filter");
  });

  it("a create n8n stores but answers late is reported as unknown, with where to look before creating again", async () => {
    n8n.delay({ method: "POST", path: /^\/workflows$/, ms: 2500, times: 1 });
    const workflow = await skill(server, "create-and-verify-workflow", { workflow: { name: "Late one", nodes: [TRIGGER_NODE], connections: {} } });
    assert.equal(workflow.payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(workflow.payload.error?.message ?? "", /creating the workflow got no answer, so whether it was created is unknown/);
    assert.match(workflow.payload.error?.hint ?? "", /Look for the workflow first \(find-workflows with namePattern "Late one"\).*duplicate/);
    assert.deepEqual(workflow.payload.error?.details, { stage: "create", outcome: "unknown" });

    n8n.delay({ method: "POST", path: /^\/credentials$/, ms: 2500, times: 1 });
    const credential = await skill(server, "create-credential", { type: "slackApi", name: "Late Slack", data: { accessToken: "xoxb-late" } });
    assert.equal(credential.payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(credential.payload.error?.hint ?? "", /audit-workflows with mode "credentials".*"Late Slack"/);

    n8n.state.dataTables.push({ id: "dt-l", name: "late", columns: [{ name: "email", type: "string" }], rows: [], nextRowId: 1 });
    n8n.delay({ method: "POST", path: /^\/data-tables\/dt-l\/rows$/, ms: 2500, times: 1 });
    const row = await skill(server, "insert-and-verify-datatable-row", { dataTableId: "dt-l", row: { email: "late@x.y" } });
    assert.match(row.payload.error?.message ?? "", /creating the data table row got no answer/);
    assert.match(row.payload.error?.hint ?? "", /data-table-crud with operation "read", dataTableId "dt-l" and filter .*"columnName":"email","condition":"eq","value":"late@x.y"/);

    // n8n did store all three: that is why the answer must not say "nothing exists".
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.ok(n8n.state.workflows.some((w) => w.name === "Late one"));
    assert.ok(n8n.state.credentials.some((c) => c.name === "Late Slack"));
    assert.equal(n8n.state.dataTables.find((t) => t.id === "dt-l")!.rows.length, 1);
    assertNoSecrets(n8n, server, workflow.payload, credential.payload, row.payload);
  });

  it("create-and-verify-workflow checks the JSON before creating; a workflow without a trigger is created with a note", async () => {
    const before = n8n.state.workflows.length;
    const dangling = await skill(server, "create-and-verify-workflow", { workflow: { name: "Dangling", nodes: [TRIGGER_NODE], connections: { "Schedule Trigger": { main: [[{ node: "Ghost", type: "main", index: 0 }]] } } } });
    assert.equal(dangling.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(dangling.payload.error?.message ?? "", /'workflow' cannot run as sent, so nothing was created: connection from 'Schedule Trigger' to 'Ghost', which is not a node/);
    const empty = await skill(server, "create-and-verify-workflow", { workflow: { name: "Empty", nodes: [] } });
    assert.match(empty.payload.error?.message ?? "", /the workflow has no nodes/);
    assert.equal(n8n.state.workflows.length, before, "nothing was created");
    const sub = await skill(server, "create-and-verify-workflow", { workflow: { name: "Sub", nodes: [{ name: "Set", type: "n8n-nodes-base.set", parameters: {} }], connections: {} } });
    assert.equal(sub.result.created, true, JSON.stringify(sub.payload));
    assert.equal(sub.result.verified, true);
    assert.equal(sub.result.trigger, false);
    assert.match(String(sub.result.note), /no trigger node: it runs only when another workflow calls it/);
    const cron = await skill(server, "create-and-verify-workflow", { workflow: { name: "Cron", nodes: [{ name: "Cron", type: "n8n-nodes-base.cron", parameters: {} }], connections: {} } });
    assert.equal(cron.result.trigger, true, "a cron node is a trigger, as in the audit");
  });

  it("create-and-verify-workflow without N8N_API_KEY answers NOT_CONFIGURED before any write", async () => {
    const env = envFor(n8n);
    delete (env as Record<string, string | undefined>).N8N_API_KEY;
    const keyless = await connect(PLUGIN, env);
    try {
      const before = n8n.state.workflows.length;
      const { payload } = await skill(keyless, "create-and-verify-workflow", { code: "workflow('x').add(trigger())", name: "From code" });
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual(payload.error?.details?.missing, ["N8N_API_KEY"]);
      assert.match(payload.error?.message ?? "", /nothing was done/);
      assert.equal(n8n.state.workflows.length, before);
      assert.ok(!n8n.mcpCalls.some((c) => c.name === "create_workflow_from_code"), "nothing was created over MCP");
    } finally {
      await keyless.close();
    }
  });
});

describe("n8n plugin: a bulk delete near the call's deadline", () => {
  it("stops starting deletes in time, answers what was deleted and what is left, and deletes nothing after answering", async () => {
    const n8n = await startN8nStandIn({ workflows: 0 });
    for (let i = 0; i < 40; i++) n8n.state.executions.push({ id: `e${i}`, workflowId: "wfX", status: "error" });
    n8n.delay({ method: "DELETE", path: /^\/executions\//, ms: 400 });
    const server = await connect(PLUGIN, envFor(n8n, { AGENT_TOOLS_CALL_TIMEOUT_MS: "4000" }));
    try {
      const { payload, result } = await skill(server, "delete-executions-bulk", { workflowId: "wfX", concurrency: 1 });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.equal(result.complete, false);
      assert.equal(result.matched, 40);
      const deleted = result.deleted as number;
      assert.ok(deleted >= 1 && deleted < 40, `deleted ${deleted}`);
      assert.equal(result.notStarted, 40 - deleted);
      assert.equal((result.left as unknown[]).length, 40 - deleted);
      assert.match(String(result.stopped), new RegExp(`deadline was near.*${40 - deleted} of 40 deletes were not started`));
      assert.match(String(result.continue), /run the skill again with the same arguments/);
      assert.equal(n8n.state.executions.length, 40 - deleted);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(n8n.state.executions.length, 40 - deleted, "no delete ran after the answer");
      const byIds = await skill(server, "delete-executions-bulk", { ids: n8n.state.executions.map((e) => String(e.id)), concurrency: 1 });
      assert.match(String(byIds.result.continue), /'ids' set to the ids in 'left'/);
      assert.deepEqual((byIds.result.left as { id: string }[]).map((e) => e.id), n8n.state.executions.map((e) => String(e.id)));
    } finally {
      await server.close();
      await n8n.close();
    }
  });
});
