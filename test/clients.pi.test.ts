import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { startFakeEndpoint } from "./fixtures/clients/fake-endpoint.js";
import { chatResponder, chatToolResults, isChatTurn, type ChatOptions, type ChatRequest } from "./fixtures/clients/openai-chat.js";
import { PAGED_TOOLS, startPagedServer } from "./fixtures/clients/paged-mcp-server.js";
import { NOTES_SCRIPT, type ScriptStep } from "./fixtures/clients/script.js";
import { assertNotesScript, CAN_SCAN_PROCESSES, ensureClient, leftoverProcesses, newRunMarker, RUN_MARKER_VAR, runClient, tempDir, type InstalledClient } from "./clients-kit.js";
import { baseEnv, ROOT } from "./helpers.js";
import { eventually, httpClient, httpForSuite, startHttp } from "./http-helpers.js";

/**
 * The real pi coding agent (pinned below), installed on demand into .clients/, with our extension
 * (integrations/pi-extension) loaded by -e, against a fake OpenAI Chat Completions endpoint that
 * plays a script. pi has no turn cap, so every run sits under a hard timeout; retries are off in
 * its settings.json, and --no-builtin-tools leaves exactly the extension's tools.
 */

const PI = { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1" } as const;
const EXTENSION = path.join(ROOT, "integrations", "pi-extension", "index.ts");
const RUN_TIMEOUT_MS = 60_000;

let client: InstalledClient;

interface PiRun {
  turns: ChatRequest[];
  code: number | null;
  stderr: string;
  stdout: string;
  leftovers: string[];
}

async function runPi(script: readonly ScriptStep[], runtimeEnv: Record<string, string>, chat: ChatOptions = {}): Promise<PiRun> {
  const endpoint = await startFakeEndpoint(chatResponder(script, chat));
  const home = tempDir("pi");
  const marker = newRunMarker();
  try {
    const agentDir = path.join(home.dir, "agent");
    mkdirSync(agentDir);
    writeFileSync(
      path.join(agentDir, "models.json"),
      JSON.stringify({
        providers: {
          fake: {
            baseUrl: `${endpoint.url}/v1`,
            api: "openai-completions",
            apiKey: "not-a-real-key",
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: "fake-model", contextWindow: 128000, maxTokens: 4096 }],
          },
        },
      }),
    );
    writeFileSync(path.join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } } }));
    const run = await runClient({
      command: process.execPath,
      args: [path.join(client.packageDir, "dist", "cli.js"), "-p", "--no-session", "--no-builtin-tools", "--no-extensions", "-e", EXTENSION, "--provider", "fake", "--model", "fake-model", "Read note n1, then add a note."],
      env: { ...baseEnv(), HOME: home.dir, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", [RUN_MARKER_VAR]: marker, ...runtimeEnv },
      cwd: home.dir,
      timeoutMs: RUN_TIMEOUT_MS,
    });
    assert.equal(run.timedOut, false, `pi did not finish in ${RUN_TIMEOUT_MS} ms:\n${run.stderr}`);
    const leftovers = await leftoverProcesses(marker);
    return { turns: endpoint.log.filter(isChatTurn).map((e) => e.body as ChatRequest), code: run.code, stderr: run.stderr, stdout: run.stdout, leftovers };
  } finally {
    await endpoint.close();
    home.remove();
  }
}

describe("pi with the agent-tools-runtime extension", { skip: CAN_SCAN_PROCESSES ? false : "needs Linux /proc to check for leftover processes" }, () => {
  before(() => {
    client = ensureClient(PI.pkg, PI.version);
  });

  describe("against the runtime over Streamable HTTP with a bearer token", () => {
    const token = "pi-client-test-token-0123456789";
    const http = httpForSuite({ AGENT_TOOLS_HTTP_TOKEN: token });

    it("registers exactly the facade's tools with their schemas, and a call reaches the plugin", { timeout: 120_000 }, async () => {
      const { client: sdk } = await httpClient(http.url, { Authorization: `Bearer ${token}` });
      const facade = (await sdk.listTools()).tools;
      await sdk.close();

      const run = await runPi(NOTES_SCRIPT, { AGENT_TOOLS_HTTP_URL: http.url, AGENT_TOOLS_HTTP_TOKEN: token });
      const first = run.turns[0];
      assert.ok(first, `pi sent no model request (exit ${run.code}):\n${run.stderr}`);
      const shown = (first.tools ?? []).map((t) => t.function);
      assert.deepEqual(
        shown.map((t) => t.name).sort(),
        facade.map((t) => t.name).sort(),
        "the model sees the facade's tools and nothing else",
      );
      for (const tool of facade) {
        const seen = shown.find((t) => t.name === tool.name);
        assert.equal(seen?.description, tool.description, `${tool.name} keeps its description`);
        assert.deepEqual(seen?.parameters, tool.inputSchema, `${tool.name} keeps its input schema`);
      }

      const results = assertNotesScript(run.turns.map(chatToolResults));
      // the extension puts the code and the hint first in the tool error it raises
      assert.match(results.refused, /^CONFIRM_REQUIRED: .*\nHint: This (tool )?changes data/);
      assert.deepEqual(run.leftovers, [], "no process of the run is left behind");
      // pi's session_shutdown closed our MCP session with a DELETE
      await eventually(() => /http DELETE .*status=200/.test(http.stderr()), "the extension's DELETE of its session");
    });
  });

  it("opens a new session and sends the call again when the runtime has dropped the old one", { timeout: 120_000 }, async () => {
    // sessions idle for 1 s are closed; the model pauses 2.5 s before its first call
    const http = await startHttp({ AGENT_TOOLS_HTTP_SESSION_IDLE_MS: "1000" });
    try {
      const run = await runPi(NOTES_SCRIPT.slice(0, 2), { AGENT_TOOLS_HTTP_URL: http.url }, { pauseBeforeStep: { 0: 2500 } });
      const results = run.turns.map(chatToolResults);
      const discover = results.find((r) => r.length === 1)?.[0] ?? "";
      assert.match(discover, /get_note/, `the call after the expiry still reached the runtime:\n${run.stderr}`);
      assert.match(results.find((r) => r.length === 2)?.[1] ?? "", /milk, bread, coffee beans/);
      assert.match(http.stderr(), /status=404/, "the old session answered 404");
      assert.ok((http.stderr().match(/initialize/g) ?? []).length >= 2, "and a second session was initialized");
      assert.deepEqual(run.leftovers, []);
    } finally {
      await http.stop();
    }
  });

  it("a call after the runtime has stopped comes back as a tool error naming the URL and the start command", { timeout: 120_000 }, async () => {
    const http = await startHttp();
    let stopped = false;
    try {
      // the runtime goes away between the discover step and the get_note call
      const run = await runPi(NOTES_SCRIPT.slice(0, 2), { AGENT_TOOLS_HTTP_URL: http.url }, { beforeStep: { 1: async () => { await http.stop(); stopped = true; } } });
      assert.ok(stopped, `the script reached the get_note step:\n${run.stderr}`);
      const failed = run.turns.map(chatToolResults).find((r) => r.length === 2)?.[1] ?? "";
      assert.ok(failed.includes(`not reachable at ${http.url}`), `the model was told what happened: ${failed}`);
      assert.match(failed, /Start it with: node \/path\/to\/agent-tools-runtime\/dist\/bin\/agent-tools-mcp-http\.js/);
      assert.deepEqual(run.leftovers, []);
    } finally {
      if (!stopped) await http.stop();
    }
  });

  it("follows nextCursor through every tools/list page", { timeout: 120_000 }, async () => {
    const paged = await startPagedServer();
    try {
      const run = await runPi([{ tool: "paged_tool_5", input: { field_5: "last page" } }], { AGENT_TOOLS_HTTP_URL: paged.url });
      assert.deepEqual(paged.cursors, [undefined, "page-2", "page-3"], "three pages read, in order");
      const first = run.turns[0];
      assert.ok(first, `pi sent no model request (exit ${run.code}):\n${run.stderr}`);
      assert.deepEqual(
        (first.tools ?? []).map((t) => t.function.name),
        PAGED_TOOLS.map((t) => t.name),
      );
      const result = run.turns.map(chatToolResults).find((r) => r.length === 1)?.[0];
      assert.equal(result, 'called paged_tool_5 with {"field_5":"last page"}', "the tool from the last page was called");
      assert.deepEqual(run.leftovers, []);
    } finally {
      await paged.close();
    }
  });

  it("says which URL it tried and how to start the runtime when it is not running", { timeout: 120_000 }, async () => {
    // a port that was just free: nothing listens there
    const closed = await startPagedServer();
    await closed.close();
    const run = await runPi(NOTES_SCRIPT, { AGENT_TOOLS_HTTP_URL: closed.url });
    const output = run.stderr + run.stdout;
    assert.ok(output.includes(`not reachable at ${closed.url}`), `the message names the URL:\n${output}`);
    assert.match(output, /Start it with: node \/path\/to\/agent-tools-runtime\/dist\/bin\/agent-tools-mcp-http\.js/);
    assert.match(output, /AGENT_TOOLS_HTTP_URL/);
    assert.equal(run.turns.length, 0, "pi stops before asking the model");
    assert.deepEqual(run.leftovers, []);
  });
});
