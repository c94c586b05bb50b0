import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { anthropicResponder, anthropicToolResults, isAgentTurn, type AnthropicRequest } from "./fixtures/clients/anthropic-messages.js";
import { startFakeEndpoint, type FakeEndpoint } from "./fixtures/clients/fake-endpoint.js";
import { NOTES_SCRIPT, type ScriptStep } from "./fixtures/clients/script.js";
import { assertNotesScript, CAN_SCAN_PROCESSES, ensureClient, leftoverProcesses, newRunMarker, RUN_MARKER_VAR, runClient, tempDir, type InstalledClient } from "./clients-kit.js";
import { fleetConfig } from "./fleet-config.js";
import { baseEnv, MCP_BIN, PLUGINS } from "./helpers.js";
import { httpForSuite, startHttp } from "./http-helpers.js";

/**
 * The real Claude Code CLI (pinned below), installed on demand into .clients/, driven through our
 * server by a fake Anthropic Messages endpoint that plays the notes script. Two modes:
 * - default: Claude Code defers MCP tools behind its own ToolSearch tool, so the model first
 *   searches with a plain query and must find the facade's notes tools by name and description;
 * - ENABLE_TOOL_SEARCH=false: every MCP tool is in the first request, here over Streamable HTTP
 *   with a bearer token.
 */

const CLAUDE_CODE = { pkg: "@anthropic-ai/claude-code", version: "2.1.332" } as const;
const SERVER = "agent-tools";
const RUN_TIMEOUT_MS = 90_000;

let client: InstalledClient;

/**
 * The native binary. The package's postinstall copies the platform package's binary over the
 * bin/claude.exe placeholder; where install scripts do not run, that placeholder stays, so the
 * platform package (an optional dependency npm installs either way) is tried first.
 */
function claudeBinary(): string {
  const platformBinary = path.join(client.prefix, "node_modules", "@anthropic-ai", `claude-code-${process.platform}-${process.arch}`, "claude");
  return existsSync(platformBinary) ? platformBinary : path.join(client.packageDir, "bin", "claude.exe");
}

interface ClaudeRun {
  endpoint: FakeEndpoint;
  turns: AnthropicRequest[];
  stderr: string;
  leftovers: string[];
}

async function runClaude(options: { script: readonly ScriptStep[]; mcpServer: Record<string, unknown>; env?: Record<string, string>; marker: string }): Promise<ClaudeRun> {
  const endpoint = await startFakeEndpoint(anthropicResponder({ script: options.script, server: SERVER }));
  const home = tempDir("claude-code");
  try {
    const mcpConfig = path.join(home.dir, "mcp.json");
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER]: options.mcpServer } }));
    const env = {
      ...baseEnv(),
      HOME: home.dir,
      CLAUDE_CONFIG_DIR: path.join(home.dir, ".claude"),
      CLAUDE_CODE_TMPDIR: home.dir,
      ANTHROPIC_BASE_URL: endpoint.url,
      ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // in -p mode Claude Code connects --mcp-config servers in the background by default, so the
      // first model request could go out before our tools are known; this makes it wait for them
      MCP_CONNECTION_NONBLOCKING: "false",
      [RUN_MARKER_VAR]: options.marker,
      ...options.env,
    };
    const run = await runClient({
      command: claudeBinary(),
      // --allowedTools with the server's prefix lets every tool of our server run without a prompt
      // (as root, --dangerously-skip-permissions is refused)
      args: ["-p", "Read note n1, then add a note.", "--mcp-config", mcpConfig, "--strict-mcp-config", "--allowedTools", `mcp__${SERVER}`, "--model", "claude-fake-model", "--max-turns", "12"],
      env,
      cwd: home.dir,
      timeoutMs: RUN_TIMEOUT_MS,
    });
    assert.equal(run.timedOut, false, `Claude Code did not finish in ${RUN_TIMEOUT_MS} ms:\n${run.stderr}`);
    const leftovers = await leftoverProcesses(options.marker);
    const turns = endpoint.log.filter(isAgentTurn).map((entry) => entry.body as AnthropicRequest);
    return { endpoint, turns, stderr: run.stderr, leftovers };
  } finally {
    await endpoint.close();
    home.remove();
  }
}

const mcpToolNames = (request: AnthropicRequest): string[] => (request.tools ?? []).map((t) => t.name).filter((n) => n.startsWith(`mcp__${SERVER}__`));

describe("Claude Code, the real CLI, through the facade", { skip: CAN_SCAN_PROCESSES ? false : "needs Linux /proc to check for leftover processes" }, () => {
  before(() => {
    client = ensureClient(CLAUDE_CODE.pkg, CLAUDE_CODE.version);
  });

  it("default mode: the model finds the notes tools with Claude Code's ToolSearch and a plain query, over stdio", { timeout: 180_000 }, async () => {
    const marker = newRunMarker();
    const search: ScriptStep = { tool: "ToolSearch", native: true, input: { query: "notes", max_results: 5 } };
    const run = await runClaude({
      script: [search, ...NOTES_SCRIPT],
      marker,
      mcpServer: { command: process.execPath, args: [MCP_BIN], env: { AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_CONFIRM: "flag", [RUN_MARKER_VAR]: marker } },
    });
    const [first, second] = run.turns;
    assert.ok(first && second, `expected several model requests, got ${run.turns.length}:\n${run.stderr}`);
    // before the search the model sees no schema of ours, only ToolSearch and the deferred names
    assert.ok(first.tools?.some((t) => t.name === "ToolSearch"), "Claude Code offers its ToolSearch tool");
    assert.deepEqual(mcpToolNames(first), [], "no MCP tool schema before the search");
    assert.match(JSON.stringify(first), /mcp__agent-tools__agent_tools_notes_discover/, "the deferred tool names are announced");

    // the search for "notes" returned references to our tools, and the next request loads their schemas
    const found = anthropicToolResults(second)[0];
    assert.ok(found, "the ToolSearch result came back");
    const references = (Array.isArray(found.raw.content) ? found.raw.content : []).filter((c) => c.type === "tool_reference").map((c) => (c as { tool_name?: string }).tool_name);
    assert.ok(references.includes("mcp__agent-tools__agent_tools_notes_discover"), `ToolSearch "notes" found the discover tool: ${references.join(", ")}`);
    assert.ok(references.includes("mcp__agent-tools__agent_tools_notes_call"), "and the call tool");
    const loaded = (second.tools ?? []).find((t) => t.name === "mcp__agent-tools__agent_tools_notes_discover");
    assert.ok(loaded, "the discover tool's schema is in the request after the search");
    assert.match(loaded.description ?? "", /Find notes tools/, "with the facade's description");
    assert.ok(JSON.stringify(loaded.input_schema).includes('"query"'), "and its input schema");

    assertNotesScript(run.turns.map((t) => anthropicToolResults(t).map((r) => r.text)), 1);
    assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
  });

  it("default mode: a query made only of words from a description (the plugin's discoverHint) finds the discover tool first", { timeout: 180_000 }, async () => {
    const marker = newRunMarker();
    // "title body tags" is in no tool name; only agent_tools_notes_discover's description has it
    const search: ScriptStep = { tool: "ToolSearch", native: true, input: { query: "title body tags", max_results: 5 } };
    const run = await runClaude({
      script: [search],
      marker,
      mcpServer: { command: process.execPath, args: [MCP_BIN], env: { AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_CONFIRM: "flag", [RUN_MARKER_VAR]: marker } },
    });
    const found = run.turns.map((t) => anthropicToolResults(t)[0]).find((r) => r !== undefined);
    assert.ok(found, `the ToolSearch result came back:\n${run.stderr}`);
    const references = (Array.isArray(found.raw.content) ? found.raw.content : []).filter((c) => c.type === "tool_reference").map((c) => (c as { tool_name?: string }).tool_name);
    assert.equal(references[0], "mcp__agent-tools__agent_tools_notes_discover", `ranked first: ${references.join(", ")}`);
    assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
  });

  /** The first ToolSearch result's tool names, in Claude Code's order. */
  async function toolSearchReferences(query: string, serverEnv: Record<string, string>): Promise<string[]> {
    const marker = newRunMarker();
    const run = await runClaude({
      script: [{ tool: "ToolSearch", native: true, input: { query, max_results: 5 } }],
      marker,
      mcpServer: { command: process.execPath, args: [MCP_BIN], env: { AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", [RUN_MARKER_VAR]: marker, ...serverEnv } },
    });
    const found = run.turns.map((t) => anthropicToolResults(t)[0]).find((r) => r !== undefined);
    assert.ok(found, `the ToolSearch result came back:\n${run.stderr}`);
    assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
    return (Array.isArray(found.raw.content) ? found.raw.content : []).filter((c) => c.type === "tool_reference").map((c) => (c as { tool_name?: string }).tool_name ?? "");
  }

  it("default mode: among five servers, a plain knowledge-graph query finds the memory plugin's _discover first", { timeout: 240_000 }, async () => {
    const dir = tempDir("claude-code-fleet");
    try {
      // memory, files and everything are real MCP servers from npm with no description in the
      // config (the facade learns what each is about); notes and tracker are fixture plugins.
      const references = await toolSearchReferences("add a person to the knowledge graph", {
        AGENT_TOOLS_CONFIG: fleetConfig(dir.dir),
        AGENT_TOOLS_PLUGINS_DIR: PLUGINS,
        AGENT_TOOLS_DESCRIBE_WAIT_MS: "60000",
      });
      assert.equal(references[0], `mcp__${SERVER}__agent_tools_memory_discover`, `ranked first: ${references.join(", ")}`);
    } finally {
      dir.remove();
    }
  });

  it("compact mode: a plain 'search for a tool' finds agent_tools_search first", { timeout: 180_000 }, async () => {
    const references = await toolSearchReferences("search for a tool", { AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_FACADE: "compact" });
    assert.equal(references[0], `mcp__${SERVER}__agent_tools_search`, `ranked first: ${references.join(", ")}`);
  });

  describe("ENABLE_TOOL_SEARCH=false, over Streamable HTTP with a bearer token", () => {
    const token = "client-test-token-0123456789";
    // The scripted model retries with confirm: true; headless Claude Code declines elicitation, so the flag decides here.
    const http = httpForSuite({ AGENT_TOOLS_HTTP_TOKEN: token, AGENT_TOOLS_CONFIRM: "flag" });

    it("lists every facade tool in the first request and runs the notes script", { timeout: 180_000 }, async () => {
      const marker = newRunMarker();
      const run = await runClaude({
        script: NOTES_SCRIPT,
        marker,
        env: { ENABLE_TOOL_SEARCH: "false" },
        mcpServer: { type: "http", url: http.url, headers: { Authorization: `Bearer ${token}` } },
      });
      const first = run.turns[0];
      assert.ok(first, `no model request:\n${run.stderr}`);
      const names = mcpToolNames(first);
      for (const tool of ["agent_tools_help", "agent_tools_notes_discover", "agent_tools_notes_call", "agent_tools_notes_run_skill"]) {
        assert.ok(names.includes(`mcp__${SERVER}__${tool}`), `the first request lists ${tool}: ${names.join(", ")}`);
      }
      const call = first.tools?.find((t) => t.name === `mcp__${SERVER}__agent_tools_notes_call`);
      assert.deepEqual((call?.input_schema as { required?: string[] }).required, ["toolName"], "with the facade's schema");
      assertNotesScript(run.turns.map((t) => anthropicToolResults(t).map((r) => r.text)));
      assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
    });
  });

  it("the README's `claude mcp add` commands (stdio and HTTP with a header) register servers `claude mcp list` reports connected", { timeout: 180_000 }, async () => {
    const marker = newRunMarker();
    const home = tempDir("claude-code-add");
    const http = await startHttp({ AGENT_TOOLS_HTTP_TOKEN: "readme-claude-token-0123456789" });
    try {
      const env = { ...baseEnv(), HOME: home.dir, CLAUDE_CONFIG_DIR: path.join(home.dir, ".claude"), CLAUDE_CODE_TMPDIR: home.dir, ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", [RUN_MARKER_VAR]: marker };
      const claude = (args: string[]) => runClient({ command: claudeBinary(), args, env, cwd: home.dir, timeoutMs: RUN_TIMEOUT_MS });
      const addStdio = await claude(["mcp", "add", "agent-tools", "-e", `AGENT_TOOLS_PLUGINS_DIR=${PLUGINS}`, "-e", "AGENT_TOOLS_NO_BUNDLED_PLUGINS=1", "-e", `${RUN_MARKER_VAR}=${marker}`, "--", "node", MCP_BIN]);
      assert.equal(addStdio.code, 0, addStdio.stderr);
      const addHttp = await claude(["mcp", "add", "--transport", "http", "agent-tools-http", http.url, "--header", "Authorization: Bearer readme-claude-token-0123456789"]);
      assert.equal(addHttp.code, 0, addHttp.stderr);
      const list = await claude(["mcp", "list"]);
      assert.match(list.stdout, /agent-tools: node \S+agent-tools-mcp\.js - ✔ Connected/, list.stdout + list.stderr);
      assert.match(list.stdout, /agent-tools-http: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/, list.stdout + list.stderr);
      assert.deepEqual(await leftoverProcesses(marker), [], "the health check's server is gone");
    } finally {
      await http.stop();
      home.remove();
    }
  });
});
