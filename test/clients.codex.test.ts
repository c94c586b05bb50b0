import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { startFakeEndpoint } from "./fixtures/clients/fake-endpoint.js";
import { CODEX_TOOL_SEARCH, isResponsesTurn, responsesResponder, responsesToolResults, type ResponsesRequest } from "./fixtures/clients/openai-responses.js";
import { NOTES_SCRIPT, type ScriptStep } from "./fixtures/clients/script.js";
import { assertNotesScript, CAN_SCAN_PROCESSES, ensureClient, leftoverProcesses, newRunMarker, RUN_MARKER_VAR, runClient, tempDir, type InstalledClient } from "./clients-kit.js";
import { baseEnv, MCP_BIN, PLUGINS } from "./helpers.js";
import { httpForSuite } from "./http-helpers.js";

/**
 * The real Codex CLI (pinned below; a native binary behind a small Node launcher), installed on
 * demand into .clients/, run with `codex exec` against a fake OpenAI Responses endpoint that plays
 * the notes script. Codex speaks only wire_api = "responses"; it groups a server's MCP tools into
 * one namespace tool (mcp__agent_tools) when the model name is one it does not know (a known name
 * hides them behind its own tool search), and it exits 0 even when a tool call fails, so the test
 * reads the endpoint's log, not the exit code.
 */

const CODEX = { pkg: "@openai/codex", version: "0.171.0" } as const;
const RUN_TIMEOUT_MS = 90_000;
const NAMESPACE = "mcp__agent_tools";

let client: InstalledClient;

const toml = (value: string): string => JSON.stringify(value);

interface CodexOptions {
  /** A model name Codex does not know lists MCP tools up front; a known one (KNOWN_MODEL) defers them. */
  model?: string;
  script?: readonly ScriptStep[];
  env?: Record<string, string>;
}

/** A model Codex 0.171.0 has metadata for, which turns on its client-side tool_search. */
const KNOWN_MODEL = "gpt-5.5";

async function runCodex(serverBlock: string, marker: string, options: CodexOptions = {}): Promise<{ turns: ResponsesRequest[]; stderr: string; leftovers: string[] }> {
  const endpoint = await startFakeEndpoint(responsesResponder({ script: options.script ?? NOTES_SCRIPT }));
  const home = tempDir("codex");
  try {
    const codexHome = path.join(home.dir, ".codex");
    mkdirSync(codexHome);
    // a provider of our own: no login, no retries (a failed request must show, not repeat)
    writeFileSync(
      path.join(codexHome, "config.toml"),
      [
        `model = ${toml(options.model ?? "fake-model-for-tests")}`,
        `model_provider = "fake"`,
        `approval_policy = "never"`,
        `sandbox_mode = "read-only"`,
        `check_for_update_on_startup = false`,
        `[analytics]`,
        `enabled = false`,
        `[model_providers.fake]`,
        `name = "fake"`,
        `base_url = ${toml(`${endpoint.url}/v1`)}`,
        `wire_api = "responses"`,
        `env_key = "FAKE_MODEL_API_KEY"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        `[mcp_servers.agent-tools]`,
        // without this, approval_policy = "never" refuses every tool not annotated read-only
        `default_tools_approval_mode = "approve"`,
        // an optional server gets about a second to start before a turn goes out without its
        // tools; required = true makes Codex wait for it (and fail loudly if it cannot start)
        `required = true`,
        serverBlock,
        "",
      ].join("\n"),
    );
    const run = await runClient({
      command: path.join(client.packageDir, "bin", "codex.js"),
      // --strict-config: a mistyped key in the config above fails the run instead of being ignored
      args: ["exec", "--strict-config", "--skip-git-repo-check", "--color", "never", "Read note n1, then add a note."],
      env: { ...baseEnv(), HOME: home.dir, CODEX_HOME: codexHome, FAKE_MODEL_API_KEY: "not-a-real-key", [RUN_MARKER_VAR]: marker, ...options.env },
      cwd: home.dir,
      timeoutMs: RUN_TIMEOUT_MS,
    });
    assert.equal(run.timedOut, false, `Codex did not finish in ${RUN_TIMEOUT_MS} ms:\n${run.stderr}`);
    const leftovers = await leftoverProcesses(marker);
    return { turns: endpoint.log.filter(isResponsesTurn).map((e) => e.body as ResponsesRequest), stderr: run.stderr, leftovers };
  } finally {
    await endpoint.close();
    home.remove();
  }
}

function stdioServer(marker: string): string {
  return [
    `command = ${toml(process.execPath)}`,
    `args = [${toml(MCP_BIN)}]`,
    `env = { AGENT_TOOLS_PLUGINS_DIR = ${toml(PLUGINS)}, AGENT_TOOLS_NO_BUNDLED_PLUGINS = "1", AGENT_TOOLS_CONFIRM = "flag", ${RUN_MARKER_VAR} = ${toml(marker)} }`,
  ].join("\n");
}

function assertFacadeNamespace(first: ResponsesRequest | undefined, stderr: string): void {
  assert.ok(first, `no model request:\n${stderr}`);
  const namespace = first.tools?.find((t) => t.type === "namespace" && t.name === NAMESPACE);
  assert.ok(namespace, `the first request has the ${NAMESPACE} namespace tool: ${(first.tools ?? []).map((t) => t.name ?? t.type).join(", ")}`);
  const names = (namespace.tools ?? []).map((t) => t.name);
  for (const tool of ["agent_tools_help", "agent_tools_notes_discover", "agent_tools_notes_call"]) assert.ok(names.includes(tool), `the namespace lists ${tool}: ${names.join(", ")}`);
  const discover = namespace.tools?.find((t) => t.name === "agent_tools_notes_discover");
  assert.match(discover?.description ?? "", /Find notes tools/, "with the facade's description");
  assert.ok(JSON.stringify(discover?.parameters).includes('"query"'), "and its input schema");
}

describe("Codex, the real CLI, through the facade", { skip: CAN_SCAN_PROCESSES ? false : "needs Linux /proc to check for leftover processes" }, () => {
  before(() => {
    client = ensureClient(CODEX.pkg, CODEX.version);
  });

  it("over stdio: the namespace tool carries the facade, and the notes script runs", { timeout: 180_000 }, async () => {
    const marker = newRunMarker();
    const run = await runCodex(stdioServer(marker), marker);
    assertFacadeNamespace(run.turns[0], run.stderr);
    assertNotesScript(run.turns.map(responsesToolResults));
    assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
  });

  it(`with a model it knows (${KNOWN_MODEL}): the facade is found through Codex's tool_search with a plain query`, { timeout: 180_000 }, async () => {
    const marker = newRunMarker();
    const search: ScriptStep = { tool: CODEX_TOOL_SEARCH, native: true, input: { query: "notes", limit: 8 } };
    const run = await runCodex(stdioServer(marker), marker, { model: KNOWN_MODEL, script: [search, ...NOTES_SCRIPT] });
    const [first, second] = run.turns;
    assert.ok(first && second, `expected several model requests, got ${run.turns.length}:\n${run.stderr}`);
    assert.ok(first.tools?.some((t) => t.type === "tool_search"), "Codex offers its tool_search");
    assert.equal(first.tools?.find((t) => t.name === NAMESPACE), undefined, "our namespace is not offered up front");
    // (the developer message also lists deferred namespaces, but it can be written before our
    // server has finished starting, so it is not checked here; the search itself waits for it)
    // Codex ran the search itself and sent back the matching namespace with our tools in it
    const output = (second.input ?? []).find((i) => i.type === "tool_search_output");
    const namespace = output?.tools?.find((t) => t.name === NAMESPACE);
    assert.ok(namespace, `tool_search "notes" found ${NAMESPACE}: ${JSON.stringify(output).slice(0, 300)}`);
    const found = (namespace.tools ?? []).map((t) => t.name);
    assert.ok(found.includes("agent_tools_notes_discover") && found.includes("agent_tools_notes_call"), `the notes tools were found: ${found.join(", ")}`);
    assert.match(namespace.tools?.find((t) => t.name === "agent_tools_notes_discover")?.description ?? "", /Find notes tools/);
    assertNotesScript(run.turns.map(responsesToolResults), 1);
    assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
  });

  describe("over Streamable HTTP with a bearer token", () => {
    const token = "codex-client-test-token-0123456789";
    // The scripted model retries with confirm: true; headless Codex declines elicitation, so the flag decides here.
    const http = httpForSuite({ AGENT_TOOLS_HTTP_TOKEN: token, AGENT_TOOLS_CONFIRM: "flag" });

    it("connects by url and runs the notes script", { timeout: 180_000 }, async () => {
      const marker = newRunMarker();
      const run = await runCodex([`url = ${toml(http.url)}`, `bearer_token_env_var = "AGENT_TOOLS_TOKEN_FOR_CODEX"`].join("\n"), marker, { env: { AGENT_TOOLS_TOKEN_FOR_CODEX: token } });
      assertFacadeNamespace(run.turns[0], run.stderr);
      assertNotesScript(run.turns.map(responsesToolResults));
      assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
    });
  });

  it("the README's `codex mcp add` commands (stdio, and HTTP with a bearer-token variable) write the servers `codex mcp list` shows", { timeout: 120_000 }, async () => {
    const home = tempDir("codex-add");
    try {
      const codexHome = path.join(home.dir, ".codex");
      mkdirSync(codexHome);
      const env = { ...baseEnv(), HOME: home.dir, CODEX_HOME: codexHome };
      const codex = (args: string[]) => runClient({ command: path.join(client.packageDir, "bin", "codex.js"), args, env, cwd: home.dir, timeoutMs: RUN_TIMEOUT_MS });
      const stdio = await codex(["mcp", "add", "agent-tools", "--env", `AGENT_TOOLS_PLUGINS_DIR=${PLUGINS}`, "--", "node", MCP_BIN]);
      assert.equal(stdio.code, 0, stdio.stderr);
      const http = await codex(["mcp", "add", "agent-tools-http", "--url", "http://127.0.0.1:8321/mcp", "--bearer-token-env-var", "AGENT_TOOLS_HTTP_TOKEN"]);
      assert.equal(http.code, 0, http.stderr);
      const list = await codex(["mcp", "list", "--json"]);
      const servers = JSON.parse(list.stdout) as { name: string; transport: Record<string, unknown> }[];
      const byName = new Map(servers.map((s) => [s.name, s.transport]));
      assert.deepEqual(
        { type: byName.get("agent-tools")?.type, command: byName.get("agent-tools")?.command, args: byName.get("agent-tools")?.args, env: byName.get("agent-tools")?.env },
        { type: "stdio", command: "node", args: [MCP_BIN], env: { AGENT_TOOLS_PLUGINS_DIR: PLUGINS } },
      );
      assert.equal(byName.get("agent-tools-http")?.type, "streamable_http");
      assert.equal(byName.get("agent-tools-http")?.url, "http://127.0.0.1:8321/mcp");
      assert.equal(byName.get("agent-tools-http")?.bearer_token_env_var, "AGENT_TOOLS_HTTP_TOKEN");
    } finally {
      home.remove();
    }
  });
});
