import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { baseEnv, callJson, FIXTURES, runCli, stdioForSuite, writePlugin } from "./helpers.js";

/**
 * A plugin.json over an MCP server takes the confirm gate's overrides an `mcpServers` entry takes
 * (`trustReadOnlyHints`, `confirmTools`), with the same meaning, through the built server over
 * stdio and a downstream whose tools all say readOnlyHint; in both manifest forms. A wrong type
 * is a problem naming the file and the field, worded as the config file words it.
 */

const HOSTILE = path.join(FIXTURES, "mcp", "hostile-server.mjs");
const server = { kind: "mcp", command: process.execPath, args: [HOSTILE], timeoutMs: 60_000 };

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-confirm-fields-"));
const plugins = path.join(dir, "plugins");
// Flat form: the server's hints are not trusted.
writePlugin(path.join(plugins, "agent-tools-plugin-wary"), { name: "wary", prefix: "wary", adapter: server, trustReadOnlyHints: false, readonlyTools: ["nested_ok"] });
// Agent Plugins Spec form: trusted (said explicitly), but one hinted tool always needs confirm.
writePlugin(path.join(plugins, "agent-tools-plugin-listed"), {
  name: "listed",
  version: "1.0.0",
  description: "hints trusted, peek confirmed",
  extensions: { "dev.agent-tools-runtime": { prefix: "listed", adapter: server, trustReadOnlyHints: true, confirmTools: ["peek"] } },
});

after(() => rmSync(dir, { recursive: true, force: true }));

const why = (payload: { error?: { details?: Record<string, unknown> } }) => payload.error?.details?.why;

describe("plugin.json's trustReadOnlyHints and confirmTools, over a real downstream", () => {
  const agent = stdioForSuite(plugins);

  it("trustReadOnlyHints: false makes a hinted tool need confirm, saying why; readonlyTools still lets one run", async () => {
    const refused = await callJson(agent.client, "agent_tools_wary_call", { toolName: "peek", arguments: {} });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(refused.payload));
    assert.equal(why(refused.payload), "readOnlyHint not trusted (trustReadOnlyHints: false)");
    const confirmed = await callJson(agent.client, "agent_tools_wary_call", { toolName: "peek", arguments: {}, confirm: true });
    assert.equal(confirmed.payload.result, "peeked", JSON.stringify(confirmed.payload));
    const listed = await callJson(agent.client, "agent_tools_wary_call", { toolName: "nested_ok", arguments: {} });
    assert.equal(listed.isError, false, JSON.stringify(listed.payload));
  });

  it("in the spec form, trustReadOnlyHints: true keeps the hints, and confirmTools overrides one", async () => {
    const hinted = await callJson(agent.client, "agent_tools_listed_call", { toolName: "nested_ok", arguments: {} });
    assert.equal(hinted.isError, false, JSON.stringify(hinted.payload));
    const refused = await callJson(agent.client, "agent_tools_listed_call", { toolName: "peek", arguments: {} });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(refused.payload));
    assert.equal(why(refused.payload), "in confirmTools (despite readOnlyHint)");
  });
});

describe("a wrong type for them is a problem naming the file and the field", () => {
  interface Report {
    ok: boolean;
    problems: string[];
  }
  const validate = async (args: string[]): Promise<{ code: number | null; report: Report }> => {
    const run = await runCli(["validate", ...args], baseEnv());
    return { code: run.code, report: JSON.parse(run.stdout) as Report };
  };

  it("in plugin.json, in both forms, at its line and column", async () => {
    const bad = path.join(dir, "bad");
    writeFileSync(
      path.join(writePlugin(path.join(bad, "agent-tools-plugin-flat"), {}), "plugin.json"),
      `{\n  "name": "flat", "prefix": "flat", "adapter": ${JSON.stringify(server)},\n  "trustReadOnlyHints": "no",\n  "confirmTools": "peek"\n}\n`,
    );
    writePlugin(path.join(bad, "agent-tools-plugin-spec"), {
      name: "spec",
      version: "1.0.0",
      description: "d",
      extensions: { "dev.agent-tools-runtime": { prefix: "spec", adapter: server, trustReadOnlyHints: 0, confirmTools: [""] } },
    });
    const empty = path.join(dir, "empty.json");
    writeFileSync(empty, "{}");
    const { code, report } = await validate(["--config", empty, "--plugins-dir", bad]);
    assert.equal(code, 1);
    const lines = report.problems.flatMap((p) => p.split("\n"));
    const flat = path.join(bad, "agent-tools-plugin-flat", "plugin.json");
    const spec = path.join(bad, "agent-tools-plugin-spec", "plugin.json");
    assert.ok(lines.includes(`${flat}:3:25: field 'trustReadOnlyHints' must be true or false`), lines.join("\n"));
    assert.ok(lines.includes(`${flat}:4:19: field 'confirmTools' must be an array of names`), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith(`${spec}:`) && line.endsWith("field 'extensions.dev.agent-tools-runtime.trustReadOnlyHints' must be true or false")), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith(`${spec}:`) && line.endsWith("field 'extensions.dev.agent-tools-runtime.confirmTools[0]' must be a non-empty string")), lines.join("\n"));
  });

  it("in an mcpServers entry, in the same words", async () => {
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { a: { command: process.execPath, args: [HOSTILE], trustReadOnlyHints: "no", confirmTools: [""] } } }));
    const { code, report } = await validate(["--config", config, "--plugins-dir", path.join(dir, "no-plugins")]);
    assert.equal(code, 1);
    const lines = report.problems.flatMap((p) => p.split("\n"));
    assert.ok(lines.some((line) => line.startsWith(`${config}:`) && line.endsWith("mcpServers.a: field 'trustReadOnlyHints' must be true or false")), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith(`${config}:`) && line.endsWith("mcpServers.a: field 'confirmTools[0]' must be a non-empty string")), lines.join("\n"));
  });
});
