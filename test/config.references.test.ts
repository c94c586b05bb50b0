import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, it } from "node:test";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { MCP_BIN, baseEnv, callJson, runCli, writePlugin } from "./helpers.js";

// `${VAR}` references the config resolves itself: an envFile path is resolved in the host
// environment (one it needs unset is a requirement, as anywhere else), a default holding a
// reference and a variable with an empty name are refused at load, and a `}` after a reference is
// text, as in a shell. The built CLI and server, with the real stdio fixture.

function writeConfig(doc: unknown, extra: Record<string, string> = {}): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-"));
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  const file = path.join(dir, "agent-tools.config.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { dir, file };
}

describe("an envFile path holding ${VAR}", () => {
  it("with the variable unset, the entry is not configured: set it (validate stays ok, the call says so)", async () => {
    const { file } = writeConfig({ mcpServers: { a: { command: process.execPath, args: [STDIO_FIXTURE], envFile: "${NOPE_ENV_DIR}/x.env" } } });
    const env = baseEnv();
    delete env.NOPE_ENV_DIR;
    const result = await runCli(["validate", "--config", file], env);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { plugins: { prefix: string; configured: boolean; status?: string }[] };
    assert.deepEqual(report.plugins.find((p) => p.prefix === "a"), { prefix: "a", name: "a", configured: false, status: "not configured: set NOPE_ENV_DIR", skills: 0 });
    assert.doesNotMatch(result.stdout + result.stderr, /cannot be read|ENOENT/);
  });

  it("with the variable set, the file it names is read into the server's env", async () => {
    const { dir, file } = writeConfig(
      { mcpServers: { a: { command: process.execPath, args: [STDIO_FIXTURE], envFile: "${REF_ENV_DIR}/x.env", env: { K2: "${REF_UNSET_A:-x}}" } } } },
      { "x.env": "FROM_FILE=read\n" },
    );
    const env = baseEnv({ REF_ENV_DIR: dir });
    delete env.REF_UNSET_A;
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, "--config", file], env, stderr: "pipe" });
    const client = new Client({ name: "references-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const seen = await callJson(client, "agent_tools_a_call", { toolName: "env", arguments: { names: ["FROM_FILE", "K2"] }, confirm: true });
      assert.equal(seen.isError, false, JSON.stringify(seen.payload));
      const values = (seen.payload.result as { values: Record<string, string> }).values;
      assert.equal(values.FROM_FILE, "read");
      // As in a shell (`echo "${A:-x}}"` prints x}): the reference ends at its first `}`, the next is text.
      assert.equal(values.K2, "x}");
    } finally {
      await client.close();
    }
  });
});

describe("references the config cannot resolve, and a nameless variable", () => {
  it("refuses a default holding a reference and an env key that is empty, naming each field", async () => {
    const { file } = writeConfig({
      mcpServers: { a: { command: process.execPath, args: [STDIO_FIXTURE], env: { "": "2", K: "${REF_A:-${REF_B}}" } } },
    });
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /mcpServers\.a: field 'env\.K' has a reference inside a default \(\$\{A:-\$\{B\}\}\), which is not resolved \(it would reach the server as text\); write the default as plain text/);
    assert.match(result.stderr, /mcpServers\.a: field 'env' has a variable named "", which is empty; a variable's name is one word/);
    const serving = await runCli(["mcp", "--config", file]);
    assert.equal(serving.code, 1, "the server refuses to start on the same file");
  });

  it("refuses an env name holding a space, '=' or a NUL, naming the server and the key and saying what a name is", async () => {
    const { file } = writeConfig({
      mcpServers: { srv: { command: process.execPath, args: [STDIO_FIXTURE], env: { "MY VAR": "1", "A=B": "2", "NUL\u0000X": "3", GOOD_NAME: "4" } } },
    });
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    const rule = "a variable's name is one word of printable characters without '=' \\(letters, digits and '_' are safe\\), such as GITHUB_TOKEN: rename it or remove it";
    assert.match(result.stderr, new RegExp(`mcpServers\\.srv: field 'env' has a variable named "MY VAR", which holds a space; ${rule}`));
    assert.match(result.stderr, new RegExp(`mcpServers\\.srv: field 'env' has a variable named "A=B", which holds '='; ${rule}`));
    assert.match(result.stderr, /mcpServers\.srv: field 'env' has a variable named "NUL\\u0000X", which holds a control character/);
    assert.doesNotMatch(result.stderr, /GOOD_NAME/, "a valid name is not reported");
    // The server refuses the same file at start, with the same words, and runs nothing.
    const serving = await runCli(["mcp", "--config", file]);
    assert.equal(serving.code, 1, "the server refuses to start on the same file");
    assert.match(serving.stderr, /mcpServers\.srv: field 'env' has a variable named "MY VAR", which holds a space/);
  });
});

describe("shell-style ${...} forms the config does not resolve", () => {
  it("are problems naming the field, the form (not its text) and the forms taken; the other clients' forms and a '}' after a reference stay accepted", async () => {
    const { file } = writeConfig({
      mcpServers: {
        sh: {
          command: process.execPath,
          args: [STDIO_FIXTURE, "${REF_V-x}", "${REF_V:=assign}", "${REF_V:+lit-secret-4411}", "${ REF_V }"],
          env: { TOKEN: "Bearer ${REF_TOKEN:?set it}" },
        },
        ok: { command: process.execPath, args: [STDIO_FIXTURE, "${REF_V:-d}", "${env:REF_V}", "${input:team-token}", "${workspaceFolder}/x", "${userHome}", "${REF_A:-x}}", "$${REF_V}"] },
      },
    });
    const result = await runCli(["validate", "--config", file], baseEnv({ REF_V: "v", TEAM_TOKEN: "t" }));
    assert.equal(result.code, 1, result.stdout);
    const problems = (JSON.parse(result.stdout) as { problems: string[] }).problems;
    const forms = "write \\$\\{NAME\\} or \\$\\{NAME:-default\\} \\(or Cursor's \\$\\{env:NAME\\}, VS Code's \\$\\{input:id\\}, \\$\\{workspaceFolder\\}, \\$\\{userHome\\}\\), or \\$\\$\\{[^']*\\} for the text as written \\('\\$\\$\\{' is a literal '\\$\\{'\\)$";
    const expected: [string, string][] = [
      ["args[1]", "${REF_V-…}"],
      ["args[2]", "${REF_V:=…}"],
      ["args[3]", "${REF_V:+…}"],
      ["args[4]", "${ REF_V }"],
      ["env.TOKEN", "${REF_TOKEN:?…}"],
    ];
    assert.equal(problems.length, expected.length, problems.join("\n"));
    for (const [field, form] of expected) {
      const line = problems.find((p) => p.includes(`mcpServers.sh: field '${field}' `));
      assert.ok(line, `${field}: ${problems.join("\n")}`);
      assert.ok(line.includes(`has '${form}', which is not a reference resolved here (it would reach the server as text;`), line);
      assert.match(line, new RegExp(forms), line);
    }
    assert.doesNotMatch(result.stdout + result.stderr, /lit-secret-4411|set it/, "the text after the operator is not quoted");
    const serving = await runCli(["mcp", "--config", file]);
    assert.equal(serving.code, 1, "the server refuses to start on the same file");
  });

  it("a script given to a shell keeps its own ${…} (sh -c '… ${1} ${x%.*} ${V:?…}'), in the config file and in plugin.json; env beside it is still checked", async () => {
    const script = 'echo "${1}" "${REF_V%.*}" "${REF_V:?must be set}" "${#REF_V}"';
    const { file } = writeConfig({
      mcpServers: {
        shell: { command: "/bin/sh", args: ["-c", script, "sh", "arg1"], env: { TOKEN: "Bearer ${REF_TOKEN:?set it}" } },
        bash: { command: "bash", args: ["-c", script] },
      },
    });
    const result = await runCli(["validate", "--config", file], baseEnv({ REF_V: "v" }));
    const problems = (JSON.parse(result.stdout) as { problems: string[] }).problems;
    assert.deepEqual(problems.map((p) => p.replace(/^.*?mcpServers\./, "")).map((p) => p.slice(0, p.indexOf(" has "))), ["shell: field 'env.TOKEN'"], problems.join("\n"));
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-plugins-"));
    writePlugin(path.join(dir, "agent-tools-plugin-shelly"), {
      name: "shelly",
      prefix: "shelly",
      description: "a plugin whose server is started by a shell script",
      adapter: { kind: "mcp", command: "sh", args: ["-c", script] },
    });
    const plugin = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir, REF_V: "v" }));
    assert.doesNotMatch(plugin.stdout + plugin.stderr, /not a reference resolved here/, plugin.stdout);
    // A cli block names its shell in `program` and gives the script in each tool's argv (and optional items).
    const cliDir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-plugins-"));
    writePlugin(path.join(cliDir, "agent-tools-plugin-shcli"), {
      name: "shcli",
      prefix: "shcli",
      description: "a cli plugin whose tool is a shell script",
      adapter: { kind: "cli", program: "/bin/sh", allowlist: ["/bin/sh"], tools: [{ name: "run", argv: ["-c", script, "sh", "{a}"], optional: { b: ["${#b}"] }, inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a"] } }] },
    });
    writePlugin(path.join(cliDir, "agent-tools-plugin-plaincli"), {
      name: "plaincli",
      prefix: "plaincli",
      description: "a cli plugin whose program is no shell",
      adapter: { kind: "cli", program: process.execPath, allowlist: [process.execPath], tools: [{ name: "run", argv: ["-e", "${REF_V:?must be set}"] }] },
    });
    const cli = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: cliDir, REF_V: "v" }));
    const said = cli.stdout + cli.stderr;
    assert.doesNotMatch(said, /shcli.*not a reference resolved here/, cli.stdout);
    assert.match(said, /agent-tools-plugin-plaincli\/plugin\.json:[\d:]+ field 'adapter\.tools\[0\]\.argv\[1\]' has '\$\{REF_V:\?…\}', which is not a reference resolved here/, cli.stdout);
  });

  it("are refused in a plugin.json too, where only ${NAME} and ${NAME:-default} are taken", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-plugins-"));
    writePlugin(path.join(dir, "agent-tools-plugin-shellish"), {
      name: "shellish",
      prefix: "shellish",
      description: "a plugin whose settings hold shell forms",
      adapter: { kind: "mcp", command: process.execPath, args: [STDIO_FIXTURE, "${REF_V:?must be set}", "${env:REF_V}"] },
    });
    const result = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir }));
    assert.notEqual(result.code, 0, result.stdout);
    const said = result.stdout + result.stderr;
    assert.match(said, /field 'adapter\.args\[1\]' has '\$\{REF_V:\?…\}', which is not a reference resolved here .*; write \$\{NAME\} or \$\{NAME:-default\}, or \$\$\{REF_V:\?…\} for the text as written \('\$\$\{' is a literal '\$\{'\)"/);
    assert.match(said, /field 'adapter\.args\[2\]' has '\$\{env:…\}', which is not a reference resolved here/);
  });
});

describe("one rule for references in the config file and in plugin.json", () => {
  it("refuses a nested default and an unclosed '${' in a plugin.json adapter block, as the config file does", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-plugins-"));
    writePlugin(path.join(dir, "agent-tools-plugin-nested"), {
      name: "nested",
      prefix: "nested",
      description: "a plugin whose settings hold references that do not resolve",
      adapter: { kind: "mcp", command: process.execPath, args: [STDIO_FIXTURE, "${REF_A:-${REF_B}}"], env: { TOKEN: "Bearer ${REF_TOKEN" } },
    });
    const result = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir }));
    assert.notEqual(result.code, 0, result.stdout);
    const said = result.stdout + result.stderr;
    assert.match(said, /field 'adapter\.args\[1\]' has a reference inside a default \(\$\{A:-\$\{B\}\}\), which is not resolved \(it would reach the server as text\); write the default as plain text/);
    assert.match(said, /field 'adapter\.env\.TOKEN' opens '\$\{' without a closing '\}'; write \$\{NAME\}/);
  });

  it("accepts in plugin.json what the config file accepts: a plain default", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-references-plugins-"));
    writePlugin(path.join(dir, "agent-tools-plugin-plain"), {
      name: "plain",
      prefix: "plain",
      description: "a plugin whose references resolve",
      adapter: { kind: "mcp", command: process.execPath, args: [STDIO_FIXTURE, "${REF_A:-plain}"] },
    });
    const result = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir }));
    assert.equal(result.code, 0, result.stdout + result.stderr);
  });
});
