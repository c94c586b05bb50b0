import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, loadConfig, parseConfig, readConfigFile } from "../src/config/config.js";
import { prefixFromKey } from "../src/config/entry-names.js";
import { manifestsFromConfig } from "../src/config/mcp-servers.js";
import { schemaDataSource, validatorsSources } from "../scripts/config-schema.js";
import { VALIDATORS_FOLDER } from "../src/validators-folder.js";
import { runCli } from "./helpers.js";

const FILE = "/work/agent-tools.config.json";

describe("config file", () => {
  it("validates with the schema of schema.ts and the manifest schemas: the generated data and precompiled validators match them (else run npm run schema:config)", () => {
    const committed = readFileSync(new URL("../src/config/schema-data.ts", import.meta.url), "utf8");
    assert.equal(committed, schemaDataSource(), "src/config/schema-data.ts is stale: run `npm run schema:config`");
    const folder = new URL(`../src/${VALIDATORS_FOLDER}/`, import.meta.url);
    const made = validatorsSources();
    assert.deepEqual(readdirSync(folder).sort(), Object.keys(made).map((name) => `${name}.cjs`).sort(), `src/${VALIDATORS_FOLDER}/ holds one file per validator, no other: run \`npm run schema:config\``);
    for (const [name, source] of Object.entries(made)) {
      assert.equal(readFileSync(new URL(`${name}.cjs`, folder), "utf8"), source, `src/${VALIDATORS_FOLDER}/${name}.cjs (a precompiled validator) is stale: run \`npm run schema:config\``);
    }
  });

  it("finds the user-level file under an absolute XDG_CONFIG_HOME, and ignores a relative one (the XDG spec calls it invalid) for ~/.config", () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "agent-tools-xdg-"));
    const home = path.join(cwd, "home");
    for (const base of [path.join(cwd, "rel"), path.join(home, ".config")]) {
      const folder = path.join(base, "agent-tools-runtime");
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, "config.json"), JSON.stringify({ plugins: { disable: [path.basename(base)] } }));
    }
    if (process.platform === "win32" || process.platform === "darwin") return;
    assert.deepEqual(loadConfig(undefined, { HOME: home, XDG_CONFIG_HOME: path.join(cwd, "rel") }, cwd).plugins.disable, ["rel"]);
    assert.deepEqual(loadConfig(undefined, { HOME: home, XDG_CONFIG_HOME: "rel" }, cwd).plugins.disable, [".config"], "a relative XDG_CONFIG_HOME is not read against the working folder");
  });

  it("reads comments and trailing commas, and resolves plugin dirs against the file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-config-"));
    const file = path.join(dir, "agent-tools.config.json");
    writeFileSync(file, `{
      // the format Claude Desktop uses
      "mcpServers": {
        "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], },
        "team": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${TEAM_TOKEN}" } },
      },
      "plugins": { "dirs": ["./plugins"], "disable": ["ollama"] },
    }`);
    const config = readConfigFile(file);
    assert.equal(config.file, file);
    assert.deepEqual(config.plugins, { dirs: [path.join(dir, "plugins")], disable: ["ollama"] });
    assert.equal(config.facade.mode, "per-plugin");
    assert.deepEqual(Object.keys(config.mcpServers), ["fs", "team"]);
    assert.deepEqual(loadConfig(undefined, {}, dir).file, file, "./agent-tools.config.json is found by default");
    assert.equal(loadConfig(undefined, {}, tmpdir()).file, undefined, "no file: an empty config");
  });

  it("turns each mcpServers entry into a plugin manifest named by its key", () => {
    const config = parseConfig(FILE, {
      mcpServers: {
        fs: { command: "npx", args: ["srv"], env: { ROOT: "${HOME}" }, readonlyTools: ["read_file"] },
        "Team Wiki": { url: "https://wiki.example/mcp", headers: { Authorization: "Bearer ${WIKI_TOKEN}", "X-Opt": "${OPT:-none}" }, type: "sse" },
        off: { command: "x", disabled: true },
      },
    });
    const manifests = manifestsFromConfig(config, new Set());
    assert.deepEqual(manifests.map((m) => m.prefix), ["fs", "team_wiki"]);
    const [fs, wiki] = manifests;
    assert.deepEqual(fs?.adapter, { kind: "mcp", command: "npx", args: ["srv"], env: { ROOT: "${HOME}" } });
    assert.deepEqual(fs?.requires, { env: ["HOME"], bins: ["npx"] });
    assert.deepEqual(fs?.readonlyTools, ["read_file"]);
    assert.deepEqual(wiki?.adapter, { kind: "mcp", url: "https://wiki.example/mcp", headers: { Authorization: "Bearer ${WIKI_TOKEN}", "X-Opt": "${OPT:-none}" }, type: "sse" });
    assert.deepEqual(wiki?.requires.env, ["WIKI_TOKEN"], "a variable with a default is not required");
    assert.equal(prefixFromKey("9lives"), "s_9lives");
  });

  const bad: [string, unknown, RegExp][] = [
    ["entry field type", { mcpServers: { fs: { command: "x", args: "a b" } } }, /agent-tools\.config\.json: mcpServers\.fs: field 'args' must be array/],
    ["entry env value", { mcpServers: { fs: { command: "x", env: { A: 1 } } } }, /mcpServers\.fs: field 'env\.A' must be string/],
    ["neither command nor url", { mcpServers: { fs: { args: [] } } }, /mcpServers\.fs: needs 'command' \(a stdio server\) or 'url'/],
    ["both", { mcpServers: { fs: { command: "x", url: "http://a" } } }, /mcpServers\.fs: has both 'command' and 'url'/],
    ["type mismatch", { mcpServers: { fs: { url: "http://a", type: "stdio" } } }, /mcpServers\.fs: field 'type' is 'stdio'/],
    ["bad url", { mcpServers: { w: { url: "ftp://a" } } }, /mcpServers\.w: field 'url' must start with http/],
    ["unknown top-level key", { mcpservers: {} }, /field 'mcpservers' is not a known setting/],
    ["http port", { http: { port: 70000 } }, /field 'http\.port' must be <= 65535/],
    ["facade mode", { facade: { mode: "tiny" } }, /field 'facade\.mode' must be one of/],
  ];
  for (const [label, doc, pattern] of bad) {
    it(`names the file, the entry and the field: ${label}`, () => {
      assert.throws(() => parseConfig(FILE, doc), (error: unknown) => error instanceof ConfigError && pattern.test(error.message));
    });
  }

  it("reports a JSON syntax error with its position, and a missing named file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-config-"));
    const file = path.join(dir, "broken.json");
    writeFileSync(file, '{\n  "mcpServers": { "a": { "command": "x" }\n');
    assert.throws(() => readConfigFile(file), /broken\.json:3:1: is not valid JSON \(CloseBraceExpected ×2 at line 3, column 1\)$/m);
    assert.throws(() => loadConfig("nope.json", {}, dir), /nope\.json: does not exist \(named by --config\)/);
    assert.throws(() => loadConfig(undefined, { AGENT_TOOLS_CONFIG: "gone.json" }, dir), /named by AGENT_TOOLS_CONFIG/);
  });

  it("says a syntax error the parser reports once per unclosed level in one problem, with the count", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-config-"));
    const file = path.join(dir, "unclosed.json");
    writeFileSync(file, '{ "mcpServers": { "a": { "command": "x" }\n');
    // validate lists what help and status list: the config's problems, once each.
    const run = await runCli(["validate", "--config", file]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as { problems: string[] };
    assert.deepEqual(report.problems, [`${file}:2:1: is not valid JSON (CloseBraceExpected ×2 at line 2, column 1)`]);
  });
});
