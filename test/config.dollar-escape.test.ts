import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { startServer, sendJson, type TestServer } from "./fixtures/rest/http-server.js";
import { MCP_BIN, baseEnv, callJson, connect, runCli, writePlugin } from "./helpers.js";

// `$${` is a literal `${` (docker-compose's escape) wherever `${VAR}` is resolved: in a config
// file's entries (env, args, the other clients' forms, defaults) and in a plugin.json's REST and
// cli blocks; an escaped `${NAME}` is no requirement and no shell form; a literal secret written
// with the escape is masked as it is sent. The built CLI and server, the real stdio fixture, a
// real local HTTP server.

function writeConfig(doc: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-dollar-escape-"));
  const file = path.join(dir, "agent-tools.config.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

/** An entry started through `sh -c`, so the script can hand its argument `$1` to the fixture server as ARG_SEEN. */
function shellEntry(arg: string, env: Record<string, string>): Record<string, unknown> {
  return { command: "/bin/sh", args: ["-c", `ARG_SEEN="$1" SHELL_SEEN="$\${ESC_FOR_SHELL}" exec "${process.execPath}" "${STDIO_FIXTURE}"`, "sh", arg], env };
}

describe("$${ in a config file's entry", () => {
  const env: Record<string, string> = {
    TEMPLATE: "Hello $${name}, you owe $$${ESC_PRICE}",
    DOLLARS: "a$$b $$ $$$${kept}",
    DEFAULTED: "${ESC_UNSET:-$${fallback}}",
    FOLDER: "$${workspaceFolder}/x",
    SHELLISH: "$${ESC_V:?must be set}",
    ESC_FOR_SHELL: "the shell read it",
    DB_PASSWORD: "pa$${ss-4471",
    DATABASE_URL: "postgres://app:pw$${x-9931@db.internal/app",
    CONN: "Server=db;Password=cs$${x-6620;Database=app",
  };
  const file = writeConfig({ mcpServers: { esc: shellEntry("arg $${name} $$ end", env) } });
  const hostEnv = baseEnv({ ESC_PRICE: "9" });
  delete hostEnv.ESC_UNSET;
  delete hostEnv.name;

  it("validate: an escaped ${NAME} is no requirement and an escaped shell form no problem", async () => {
    const result = await runCli(["validate", "--config", file], hostEnv);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout) as { plugins: { prefix: string; configured: boolean; status?: string }[] };
    assert.deepEqual(report.plugins.find((p) => p.prefix === "esc"), { prefix: "esc", name: "esc", configured: true, skills: 0 });
    assert.doesNotMatch(result.stdout + result.stderr, /set name|fallback|ESC_V|not a reference/);
  });

  it("the server gets each escape as a literal '${', reads the rest as before, and masks a literal secret as it is sent", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, "--config", file], env: hostEnv, stderr: "pipe" });
    const client = new Client({ name: "dollar-escape-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const seen = await callJson(client, "agent_tools_esc_call", { toolName: "env", arguments: { names: [...Object.keys(env), "ARG_SEEN", "SHELL_SEEN"] }, confirm: true });
      assert.equal(seen.isError, false, JSON.stringify(seen.payload));
      const values = (seen.payload.result as { values: Record<string, string> }).values;
      assert.equal(values.TEMPLATE, "Hello ${name}, you owe $9", "a '$' before a reference is '$$' then the reference");
      assert.equal(values.DOLLARS, "a$$b $$ $${kept}", "'$$' not before '{' stays as written");
      assert.equal(values.DEFAULTED, "${fallback}", "an escape in a default");
      assert.equal(values.FOLDER, "${workspaceFolder}/x", "an escaped client form is not rewritten");
      assert.equal(values.SHELLISH, "${ESC_V:?must be set}");
      assert.equal(values.ARG_SEEN, "arg ${name} $$ end", "an argument");
      assert.equal(values.SHELL_SEEN, "the shell read it", "an escaped reference in a shell script is the shell's to read");
      const said = JSON.stringify(seen.payload);
      assert.doesNotMatch(said, /ss-4471/, "a literal password with an escape is masked as sent");
      assert.doesNotMatch(said, /x-9931/, "a literal URL password with an escape is masked as sent");
      assert.doesNotMatch(said, /x-6620/, "a literal connection string's password with an escape is masked as sent");
      assert.match(values.CONN ?? "", /^Server=db;Password=.*;Database=app$/);
      assert.match(values.DATABASE_URL ?? "", /^postgres:\/\/app:.*@db\.internal\/app$/, "the rest of the URL stays readable");
    } finally {
      await client.close();
    }
  });
});

describe("problems that name a ${ plausibly meant as text say the escape", () => {
  it("an unclosed '${', a shell form and an envFile line say '$${' writes a literal '${'", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-dollar-escape-"));
    writeFileSync(path.join(dir, "x.env"), "PASS=pa${ss\n");
    const file = path.join(dir, "agent-tools.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          a: { command: process.execPath, args: [STDIO_FIXTURE, "${ESC_V:+lit-secret-5512}"], env: { PASSWORD: "pa${ss" }, envFile: "x.env" },
        },
      }),
    );
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    const problems = (JSON.parse(result.stdout) as { problems: string[] }).problems;
    const find = (text: string) => problems.find((p) => p.includes(text)) ?? assert.fail(`${text}: ${problems.join("\n")}`);
    assert.match(find("field 'args[1]'"), /has '\$\{ESC_V:\+…\}', which is not a reference resolved here .*; write \$\{NAME\} or \$\{NAME:-default\} \(or .*\), or \$\$\{ESC_V:\+…\} for the text as written \('\$\$\{' is a literal '\$\{'\)$/);
    assert.match(find("field 'env.PASSWORD'"), /opens '\$\{' without a closing '\}'; write \$\{NAME\} \(or \$\{NAME:-default\}\), or \$\$\{ for a literal '\$\{' \(a template or a password that holds one\)$/);
    assert.match(find("line 1 (PASS)"), /opens '\$\{' without a closing '\}'; write \$\{NAME\}, or \$\$\{ for a literal '\$\{'$/);
    assert.doesNotMatch(result.stdout + result.stderr, /lit-secret-5512|pa\$\{ss/, "neither the text after the operator nor the password is quoted");
  });
});

describe("$${ in a plugin.json's REST and cli blocks", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer((req, res) => sendJson(res, 200, { path: req.url, template: req.headers["x-template"] }));
  });
  after(async () => {
    await server.close();
  });

  it("a header and a base URL get a literal '${'; a cli block's env too; neither is a requirement", async () => {
    const plugins = mkdtempSync(path.join(tmpdir(), "agent-tools-dollar-escape-plugins-"));
    writePlugin(path.join(plugins, "agent-tools-plugin-tpl"), {
      name: "tpl",
      prefix: "tpl",
      description: "a REST plugin whose header holds a template",
      adapter: { kind: "rest", baseUrl: `${server.url}/v1/$\${ESC_SEGMENT}`, headers: { "X-Template": "Bearer $${ESC_TOKEN}" }, tools: [{ name: "get", path: "/item" }] },
    });
    writePlugin(path.join(plugins, "agent-tools-plugin-tplcli"), {
      name: "tplcli",
      prefix: "tplcli",
      description: "a cli plugin whose env holds a template",
      adapter: { kind: "cli", program: process.execPath, allowlist: [process.execPath], env: { TPL: "Hi $${ESC_WHO}" }, tools: [{ name: "show", argv: ["-e", "process.stdout.write(JSON.stringify({tpl: process.env.TPL}))"] }] },
    });
    const checked = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: plugins }));
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.doesNotMatch(checked.stdout + checked.stderr, /ESC_SEGMENT|ESC_TOKEN|ESC_WHO/, "an escaped name is not reported as unset");
    const connected = await connect(plugins);
    try {
      const rest = await callJson(connected.client, "agent_tools_tpl_call", { toolName: "get", arguments: {}, confirm: true });
      assert.equal(rest.isError, false, JSON.stringify(rest.payload));
      const sent = server.requests.at(-1);
      assert.equal(sent?.headers["x-template"], "Bearer ${ESC_TOKEN}");
      assert.equal(decodeURIComponent(sent?.url ?? ""), "/v1/${ESC_SEGMENT}/item");
      const cli = await callJson(connected.client, "agent_tools_tplcli_call", { toolName: "show", arguments: {}, confirm: true });
      assert.equal(cli.isError, false, JSON.stringify(cli.payload));
      assert.match(JSON.stringify(cli.payload), /Hi \$\{ESC_WHO\}/);
    } finally {
      await connected.close();
    }
  });
});
