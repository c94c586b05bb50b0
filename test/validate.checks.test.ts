import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { baseEnv, callJson, connect, FIXTURES, runCli, writePlugin } from "./helpers.js";

// What `agent-tools validate` used to pass (ok, exit 0) and the server then lost or failed on at
// first use: each is now a problem naming the file, the field and where, all of them in one run.

interface Report {
  ok: boolean;
  plugins: { prefix: string; name: string; configured: boolean; status?: string }[];
  problems: string[];
  notices?: string[];
}

async function validate(args: string[], env: Record<string, string> = baseEnv()): Promise<{ code: number | null; report: Report; stderr: string }> {
  const run = await runCli(["validate", ...args], env);
  return { code: run.code, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
}

/** The one problem that matches, or a failure listing them all. */
function problemLike(report: Report, pattern: RegExp): string {
  const found = report.problems.flatMap((p) => p.split("\n")).filter((p) => pattern.test(p));
  assert.equal(found.length, 1, `${pattern}\n${report.problems.join("\n")}`);
  return found[0] as string;
}

let dir: string;
before(() => (dir = mkdtempSync(path.join(tmpdir(), "agent-tools-validate-checks-"))));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the settings files' JSON", () => {
  it("a key given twice is a problem at both places, in the config file and in plugin.json", async () => {
    const config = path.join(dir, "dup.json");
    writeFileSync(config, `{"mcpServers": {"a": {"command": "node"},\n  "a": {"command": "node"}},\n "mcpServers": {"b": {"command": "node"}}}`);
    const { code, report, stderr } = await validate(["--config", config]);
    assert.equal(code, 1, stderr);
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems, [
      `${config}:2:3: key 'mcpServers.a' is given twice in one object (first at line 1, column 17); only one would be read, so merge the two or rename one`,
      `${config}:3:2: key 'mcpServers' is given twice in one object (first at line 1, column 2); only one would be read, so merge the two or rename one`,
    ]);

    const plugins = path.join(dir, "dup-plugins");
    const folder = writePlugin(path.join(plugins, "agent-tools-plugin-twice"), {});
    writeFileSync(path.join(folder, "plugin.json"), `{"name": "twice", "prefix": "twice", "prefix": "other", "description": "d", "adapter": "./a.mjs"}`);
    const plugin = await validate(["--plugins-dir", plugins]);
    assert.equal(plugin.code, 1);
    problemLike(plugin.report, /agent-tools-plugin-twice\/plugin\.json:1:38: key 'prefix' is given twice in one object \(first at line 1, column 19\)/);
  });

  it("nesting thousands deep is one problem naming the file, not a stack overflow", async () => {
    const config = path.join(dir, "deep.json");
    const text = `{"mcpServers": {"a": {"command": "node", "env": ${"[".repeat(5000)}}}}`;
    writeFileSync(config, text);
    const { code, report, stderr } = await validate(["--config", config]);
    assert.equal(code, 1);
    assert.doesNotMatch(stderr, /RangeError|Maximum call stack|\n {4}at /);
    // Three objects, then arrays: the 254th '[' is the 257th level.
    const column = text.indexOf("[") + 253 + 1;
    assert.deepEqual(report.problems, [`${config}:1:${column}: nests objects and arrays more than 256 levels deep; a settings file needs a few (look for brackets opened here and never closed)`]);

    const plugins = path.join(dir, "deep-plugins");
    const folder = writePlugin(path.join(plugins, "agent-tools-plugin-deep"), {});
    writeFileSync(path.join(folder, "plugin.json"), `{"name": "deep", "prefix": "deep", "adapter": {"kind": "mcp", "args": ${"[".repeat(5000)}}}`);
    const plugin = await validate(["--plugins-dir", plugins]);
    assert.equal(plugin.code, 1);
    problemLike(plugin.report, /agent-tools-plugin-deep\/plugin\.json:1:\d+: nests objects and arrays more than 256 levels deep/);
  });

  it("a leading byte-order mark (Windows Notepad) is skipped, and positions are the editor's", async () => {
    const config = path.join(dir, "bom.json");
    writeFileSync(config, `\uFEFF{"mcpServers": {"b": {"command": ${JSON.stringify(process.execPath)}}}}`);
    const fine = await validate(["--config", config]);
    assert.equal(fine.code, 0, fine.stderr);
    assert.deepEqual(fine.report.plugins.map((p) => p.prefix), ["b"]);

    writeFileSync(config, `\uFEFF{"mcpServers": {"b": {"command": 5}}}`);
    const bad = await validate(["--config", config]);
    assert.equal(bad.code, 1);
    problemLike(bad.report, /bom\.json:1:34: mcpServers\.b: field 'command' must be/);

    const plugins = path.join(dir, "bom-plugins");
    const folder = writePlugin(path.join(plugins, "agent-tools-plugin-bom"), {}, { "a.mjs": "export default class { async listTools() { return { tools: [] }; } async call() { return {}; } }\n" });
    writeFileSync(path.join(folder, "plugin.json"), `\uFEFF{"name": "bom", "prefix": "bom", "description": "d", "adapter": "./a.mjs"}`);
    const plugin = await validate(["--plugins-dir", plugins]);
    assert.equal(plugin.code, 0, plugin.stderr);
    assert.deepEqual(plugin.report.plugins.map((p) => p.prefix), ["bom"]);
  });
});

describe("a plugin.json that does not parse: what to write, once per place", () => {
  it("an empty plugin.json (or one of comments only) says so and what a minimal one holds", async () => {
    const plugins = path.join(dir, "empty-plugins");
    const empty = writePlugin(path.join(plugins, "agent-tools-plugin-empty"), {});
    writeFileSync(path.join(empty, "plugin.json"), "");
    const comments = writePlugin(path.join(plugins, "agent-tools-plugin-comments"), {});
    writeFileSync(path.join(comments, "plugin.json"), "// to do\n");
    const { code, report } = await validate(["--plugins-dir", plugins]);
    assert.equal(code, 1);
    const minimal = ' a plugin.json holds one JSON object, at least { "name": "notes", "prefix": "notes", "adapter": "./adapter.mjs" } (README, "plugin.json", shows both forms)';
    assert.equal(problemLike(report, /agent-tools-plugin-empty\//), `${empty}/plugin.json:1:1: is empty;${minimal}`);
    assert.equal(problemLike(report, /agent-tools-plugin-comments\//), `${comments}/plugin.json:1:1: holds only comments, no JSON value;${minimal}`);
    assert.doesNotMatch(report.problems.join("\n"), /ValueExpected/);
  });

  it("a stray ',,' is one line per place, each naming its parser codes once; past three places one line counts the rest", async () => {
    const plugins = path.join(dir, "commas-plugins");
    const folder = writePlugin(path.join(plugins, "agent-tools-plugin-commas"), {});
    writeFileSync(path.join(folder, "plugin.json"), '{ "name": "c", "prefix": "c", "adapter": "./a.mjs",, \n  "readonlyTools": ["x"\n}\n');
    const { code, report } = await validate(["--plugins-dir", plugins]);
    assert.equal(code, 1);
    const file = path.join(folder, "plugin.json");
    assert.deepEqual(report.problems.flatMap((p) => p.split("\n")), [
      `${file}:1:52: is not valid JSON (PropertyNameExpected, ValueExpected at line 1, column 52)`,
      `${file}:3:1: is not valid JSON (CommaExpected, ValueExpected at line 3, column 1)`,
      `${file}:4:1: is not valid JSON (CloseBracketExpected, CloseBraceExpected at line 4, column 1)`,
    ]);

    writeFileSync(path.join(folder, "plugin.json"), '{ "name": "c",, "prefix": "c",, "adapter": "./a.mjs",, "description": "d",, "skills": "s",, "version": "1" }');
    const many = await validate(["--plugins-dir", plugins]);
    const lines = many.report.problems.flatMap((p) => p.split("\n"));
    assert.equal(lines.length, 4, lines.join("\n"));
    assert.match(lines[3] ?? "", /plugin\.json:1:\d+: and 2 more places from here on where the JSON does not parse, often only because of a mistake above; fix the ones above and check again$/);
  });
});

describe("an adapter module written in TypeScript", () => {
  it("says Node runs plugin modules as JavaScript and to compile it, naming the file", async () => {
    const plugins = path.join(dir, "ts-plugins");
    writePlugin(path.join(plugins, "agent-tools-plugin-typed"), { name: "typed", prefix: "typed", description: "d", adapter: "./adapter.ts" }, { "adapter.ts": "export default class { async listTools(): Promise<{ tools: [] }> { return { tools: [] }; } async call() { return {}; } }\n" });
    const { code, report } = await validate(["--plugins-dir", plugins]);
    assert.equal(code, 1);
    assert.match(
      problemLike(report, /agent-tools-plugin-typed/),
      /plugin\.json: field 'adapter' could not be loaded from '\.\/adapter\.ts': Node runs a plugin's modules as JavaScript and does not import a '\.ts' file; compile it to JavaScript \(tsc, esbuild\) and name the \.mjs or \.js file it makes$/,
    );
  });
});

describe("a declarative block's ${VAR} that the host does not set", () => {
  it("is a problem of validate naming the field and the variable (never its value), unless requires.env lists it", async () => {
    const plugins = path.join(dir, "unset-plugins");
    const block = { kind: "rest", baseUrl: "http://127.0.0.1:9/api", auth: { type: "bearer", token: "${AT_TEST_UNSET_TOKEN}" }, headers: { "x-team": "${AT_TEST_TEAM:-core}" }, tools: [{ name: "get_item", method: "GET", path: "/items/{id}", description: "uses ${NOT_RESOLVED} in prose" }] };
    writePlugin(path.join(plugins, "agent-tools-plugin-unlisted"), { name: "unlisted", prefix: "unlisted", description: "d", adapter: block });
    writePlugin(path.join(plugins, "agent-tools-plugin-listed"), { name: "listed", prefix: "listed", description: "d", adapter: block, requires: { env: ["AT_TEST_UNSET_TOKEN"] } });
    const { code, report } = await validate(["--plugins-dir", plugins]);
    assert.equal(code, 1);
    assert.equal(report.problems.length, 1, report.problems.join("\n"));
    assert.match(
      problemLike(report, /agent-tools-plugin-unlisted/),
      /plugin\.json:1:\d+: field 'adapter\.auth\.token' needs \$AT_TEST_UNSET_TOKEN, which is not set on the host: every call that uses this setting would answer NOT_CONFIGURED until it is set; set it in the agent-tools server's environment, and list it in requires\.env so the plugin reads "not configured: set AT_TEST_UNSET_TOKEN" meanwhile$/,
    );
    assert.equal(report.plugins.find((p) => p.prefix === "listed")?.status, "not configured: set AT_TEST_UNSET_TOKEN");

    const set = await validate(["--plugins-dir", plugins], { ...baseEnv(), AT_TEST_UNSET_TOKEN: "s3cret-value" });
    assert.equal(set.code, 0, set.stderr);
    assert.doesNotMatch(set.stderr + JSON.stringify(set.report), /s3cret-value/);
  });

  it("is not a problem when a requires.env entry 'A|B' names it and the other name satisfies the entry", async () => {
    const plugins = path.join(dir, "alternative-plugins");
    const block = { kind: "rest", baseUrl: "http://127.0.0.1:9/api", auth: { type: "bearer", token: "${AT_TEST_EXPLICIT_TOKEN}" }, tools: [{ name: "get_item", method: "GET", path: "/items/{id}" }] };
    writePlugin(path.join(plugins, "agent-tools-plugin-either"), { name: "either", prefix: "either", description: "d", adapter: block, requires: { env: ["AT_TEST_EXPLICIT_TOKEN|AT_TEST_DERIVED_TOKEN"] } });
    const { code, report, stderr } = await validate(["--plugins-dir", plugins], { ...baseEnv(), AT_TEST_DERIVED_TOKEN: "derived-value" });
    assert.equal(report.plugins.find((p) => p.prefix === "either")?.status, undefined, "configured through the other name");
    assert.deepEqual(report.problems, [], report.problems.join("\n"));
    assert.equal(code, 0, stderr);
  });
});

describe("adapters are built by validate, every problem at once", () => {
  let plugins: string;
  let report: Report;
  let code: number | null;
  const adapterModule = "export default class { async listTools() { return { tools: [] }; } async call() { return {}; } }\n";
  before(async () => {
    plugins = path.join(dir, "adapters");
    const plugin = (name: string, adapter: unknown, files: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
      writePlugin(path.join(plugins, `agent-tools-plugin-${name}`), { name, prefix: name, description: `the ${name} test plugin`, adapter, ...extra }, files);
    plugin("kafka", { kind: "kafka", topic: "t" });
    plugin("method", { kind: "rest", baseUrl: "https://api.example.com", tools: [{ name: "a", method: "GTE", path: "/a" }] });
    plugin("lower", { kind: "rest", baseUrl: "https://api.example.com", tools: [{ name: "a", method: "post", path: "/a" }, { name: "b", method: "Get", path: "/b" }] });
    plugin("rules", { kind: "rest", baseUrl: "https://api.example.com/v1", tools: [{ name: "a", path: "/a" }, { name: "b", path: "../../etc" }, { name: "a", path: "/c" }] });
    // Builds (the base URL is read at each call), and would fail every call.
    plugin("base", { kind: "rest", baseUrl: "https://api.example.com/v1?access_key=VERY-SECRET-KEY", tools: [{ name: "a", path: "/a" }] });
    plugin("login", { kind: "rest", baseUrl: "https://api.example.com/v1", auth: { type: "login", url: "https://auth.example.com/v1/login", body: {} }, tools: [{ name: "a", path: "/a" }] });
    const servers = { openapi: "3.1.0", info: { title: "t", version: "1" }, servers: [{ url: "http://{host}:8080/v1" }], paths: { "/e": { get: { operationId: "e" } } } };
    plugin("servers", { kind: "openapi", spec: "./spec.json" }, { "spec.json": JSON.stringify(servers) });
    plugin("exportname", "./a.mjs", { "a.mjs": adapterModule }, { adapterExport: "Nope" });
    plugin("syntax", "./a.mjs", { "a.mjs": "export default class { async listTools( {\n" });
    plugin("throws", "./a.mjs", { "a.mjs": 'export default class { constructor() { throw new Error("the constructor refused"); } async listTools() { return { tools: [] }; } async call() { return {}; } }\n' });
    plugin("missing", "./missing.mjs");
    plugin("fine", "./a.mjs", { "a.mjs": adapterModule });
    plugin("skillsyntax", "./a.mjs", { "a.mjs": adapterModule, "skills/bad.mjs": "export async function run() { return 1;; }\nexport const meta = { description: ;\n" }, { skills: "skills" });
    ({ code, report } = await validate(["--plugins-dir", plugins]));
  });

  it("exits 1, and the plugin that builds is still listed", () => {
    assert.equal(code, 1);
    assert.equal(report.ok, false);
    assert.ok(report.plugins.some((p) => p.prefix === "fine"), JSON.stringify(report.plugins));
    assert.ok(report.plugins.some((p) => p.prefix === "lower"), "methods in lower or mixed case are normalised, not refused");
  });

  it("an unknown adapter kind names the known kinds, at its line and column", () => {
    problemLike(report, /agent-tools-plugin-kafka\/plugin\.json:1:\d+: field 'adapter\.kind' 'kafka' is not a known adapter kind; use one of: cli, mcp, mcp-filesystem, openapi, rest$/);
  });

  it("a REST method that is not an HTTP method", () => {
    problemLike(report, /agent-tools-plugin-method\/plugin\.json:1:\d+: field 'adapter\.tools\[0\]\.method' must be an HTTP method: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS \(any case\)/);
  });

  it("a path that leaves the base and a tool name twice, both; a base URL with a query, its key not shown", () => {
    problemLike(report, /agent-tools-plugin-base\/plugin\.json:1:\d+: field 'adapter\.baseUrl' is refused: baseUrl 'https:\/\/api\.example\.com\/v1' must not have a query/);
    problemLike(report, /agent-tools-plugin-rules\/plugin\.json:1:\d+: field 'adapter\.tools\[1\]\.path' is refused: .*"\.\.\/\.\.\/etc"/);
    problemLike(report, /agent-tools-plugin-rules\/plugin\.json:1:\d+: field 'adapter\.tools\[2\]\.name' 'a' is defined twice \(first as tools\[0\]\.name\)/);
    assert.doesNotMatch(report.problems.join("\n"), /VERY-SECRET-KEY/);
  });

  it("a login url that leaves the base URL, and an OpenAPI servers URL variable without a default", () => {
    problemLike(report, /agent-tools-plugin-login\/plugin\.json:1:\d+: field 'adapter\.auth\.url' is refused: auth\.url "https:\/\/auth\.example\.com\/v1\/login" is an absolute URL; only paths under the base URL are allowed; write the login's path under adapter\.baseUrl/);
    problemLike(report, /agent-tools-plugin-servers\/plugin\.json:1:\d+: field 'adapter\.baseUrl' is needed: the spec's first server URL 'http:\/\/\{host\}:8080\/v1' has the variable '\{host\}' with no entry under its variables/);
  });

  it("module adapters: a wrong export, a syntax error, a constructor that throws, a file that is not there", () => {
    problemLike(report, /agent-tools-plugin-exportname\/plugin\.json: field 'adapter' could not be loaded from '\.\/a\.mjs': adapterExport 'Nope' is not exported \(exports: default\)/);
    problemLike(report, /agent-tools-plugin-syntax\/plugin\.json: field 'adapter' could not be loaded from '\.\/a\.mjs': SyntaxError: .*`node --check .*a\.mjs` shows where/);
    problemLike(report, /agent-tools-plugin-throws\/plugin\.json: field 'adapter' could not be loaded from '\.\/a\.mjs': the constructor refused/);
    problemLike(report, /agent-tools-plugin-missing\/plugin\.json: field 'adapter' could not be loaded from '\.\/missing\.mjs': .*agent-tools-plugin-missing\/missing\.mjs does not exist$/);
  });

  it("a skill file with a syntax error says how to find its line, as an adapter module's does", () => {
    problemLike(report, /skill 'bad' of plugin 'skillsyntax' failed to load \(.*skills\/bad\.mjs\): SyntaxError: .*\(`node --check .*skills\/bad\.mjs` shows where\)/);
  });

  it("the server refuses an unknown kind at start too, with the same words", async () => {
    const only = path.join(dir, "kafka-only");
    writePlugin(path.join(only, "agent-tools-plugin-kafka"), { name: "kafka", prefix: "kafka", description: "d", adapter: { kind: "kafka" } });
    // status loads the fleet as the server does (catalogs persist there: adapters wait for first use).
    const run = await runCli(["status"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: only, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") }));
    assert.match(run.stdout + run.stderr, /'kafka' is not a known adapter kind; use one of: cli, mcp, mcp-filesystem, openapi, rest/);
  });
});

describe("config entries: why not configured, and what would stop a server from starting", () => {
  it("says the status of each unconfigured entry, and checks command and cwd without starting anything", async () => {
    const folder = path.join(dir, "entries");
    mkdirSync(path.join(folder, "a-folder"), { recursive: true });
    writeFileSync(path.join(folder, "not-executable.sh"), "echo hi\n");
    chmodSync(path.join(folder, "not-executable.sh"), 0o644);
    const marker = path.join(folder, "started");
    const config = path.join(folder, "agent-tools.config.json");
    writeFileSync(
      config,
      JSON.stringify(
        {
          mcpServers: {
            envref: { command: process.execPath, env: { TOKEN: "${VALIDATE_TEST_UNSET_TOKEN}" } },
            nobin: { command: "no-such-program-for-validate" },
            noexec: { command: "./not-executable.sh" },
            folder: { command: "./a-folder" },
            nocwd: { command: process.execPath, cwd: "./not-there" },
            starts: { command: process.execPath, args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x")`] },
          },
        },
        null,
        2,
      ),
    );
    const { code, report } = await validate(["--config", config]);
    assert.equal(code, 1);
    const status = Object.fromEntries(report.plugins.map((p) => [p.prefix, p.status]));
    assert.equal(status.envref, "not configured: set VALIDATE_TEST_UNSET_TOKEN");
    assert.equal(status.nobin, "not configured: install no-such-program-for-validate (not found on PATH)");
    assert.equal(status.starts, undefined, "a configured entry has no status line");
    problemLike(report, new RegExp(`^${config}:\\d+:18: field 'mcpServers\\.noexec\\.command' names '${folder}/not-executable\\.sh', which is not executable`));
    problemLike(report, new RegExp(`^${config}:\\d+:18: field 'mcpServers\\.folder\\.command' names '${folder}/a-folder', which is a folder, not a program$`));
    problemLike(report, new RegExp(`^${config}:\\d+:14: field 'mcpServers\\.nocwd\\.cwd' names '${folder}/not-there', which does not exist`));
    // A bare command not on PATH: the entry's status, and a problem at its position (the entry is there only to run it).
    problemLike(report, new RegExp(`^${config}:\\d+:18: field 'mcpServers\\.nobin\\.command' names 'no-such-program-for-validate', which is not found on PATH as an executable file; install it or give its path$`));
    assert.equal(report.problems.length, 4, report.problems.join("\n"));
    assert.equal(existsSync(marker), false, "validate started no server");
  });

  it("a bare command is looked up on the PATH the entry's env sets, the PATH the server is started with", async () => {
    const folder = path.join(dir, "entry-path");
    const bin = path.join(folder, "bin");
    mkdirSync(bin, { recursive: true });
    // A program only the entry's PATH holds: an MCP server (the fixture) behind a script.
    writeFileSync(path.join(bin, "only-on-entry-path"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(FIXTURES, "mcp", "stdio-server.mjs"))}\n`);
    chmodSync(path.join(bin, "only-on-entry-path"), 0o755);
    const config = path.join(folder, "agent-tools.config.json");
    const hostPath = process.env.PATH ?? "";
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          emptied: { command: "node", args: ["-e", "0"], env: { PATH: path.join(folder, "empty") } },
          extended: { command: "only-on-entry-path", env: { PATH: `${bin}:\${PATH}` } },
        },
      }),
    );
    const { code, report } = await validate(["--config", config]);
    assert.equal(code, 1, "a command its entry's PATH lacks is a problem");
    problemLike(report, new RegExp(`field 'mcpServers\\.emptied\\.command' names 'node', which is not found on the PATH its env\\.PATH sets`));
    assert.equal(report.problems.length, 1, report.problems.join("\n"));
    const status = Object.fromEntries(report.plugins.map((p) => [p.prefix, p.status]));
    assert.equal(status.emptied, `not configured: install node (not found on the PATH its env.PATH sets ('${path.join(folder, "empty")}'))`);
    assert.equal(status.extended, undefined, "found on the entry's PATH: configured");

    const rt = await connect(path.join(folder, "no-plugins"), { AGENT_TOOLS_CONFIG: config, PATH: hostPath });
    try {
      const { payload } = await callJson(rt.client, "agent_tools_extended_call", { toolName: "echo", arguments: { text: "on the entry's PATH" } });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.equal(payload.result, "on the entry's PATH");
      const refused = await callJson(rt.client, "agent_tools_emptied_call", { toolName: "x", arguments: {} });
      assert.match(JSON.stringify(refused.payload), /NOT_CONFIGURED.*install node \(not found on the PATH its env\.PATH sets/);
    } finally {
      await rt.close();
    }
  });

  it("a url that is not a valid URL is a problem at load naming the field and what is wrong; credentials in it are masked", async () => {
    const config = path.join(dir, "bad-urls.json");
    const token = "ghp_abcdefghijklmnop123456";
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          ftp: { url: "ftp://u:SuperSecret123@host/x" },
          pasted: { url: `not a url ${token}` },
          ipv6: { url: `http://[::1:${token}/` },
          spaced: { url: "http://exa mple.com/mcp" },
          later: { url: "https://${VALIDATE_TEST_HOST}/mcp" },
        },
      }),
    );
    const { code, report, stderr } = await validate(["--config", config]);
    assert.equal(code, 1);
    assert.deepEqual(
      report.problems.map((p) => p.replace(/^[^ ]+ /, "")),
      [
        "mcpServers.ftp: field 'url' must start with http:// or https:// (got 'ftp://***@host/x')",
        "mcpServers.pasted: field 'url' must start with http:// or https:// (got 'not a url ***')",
        "mcpServers.ipv6: field 'url' is not a valid URL: its IPv6 address opens '[' without a closing ']' (got 'http://[::1:***/'); write it as http(s)://host[:port]/path (a host holds no spaces; in the path, write a space or another character a URL cannot hold percent-encoded, %20)",
        "mcpServers.spaced: field 'url' is not a valid URL: its host 'exa mple.com' holds a space (got 'http://exa mple.com/mcp'); write it as http(s)://host[:port]/path (a host holds no spaces; in the path, write a space or another character a URL cannot hold percent-encoded, %20)",
      ],
    );
    const status = await runCli(["status", "--config", config]);
    for (const text of [JSON.stringify(report), stderr, status.stdout, status.stderr]) {
      assert.doesNotMatch(text, /SuperSecret123|ghp_abcdefghijklmnop123456/);
    }
    assert.match(status.stdout + status.stderr, /mcpServers\.ftp: field 'url' must start with http:\/\/ or https:\/\/ \(got 'ftp:\/\/\*\*\*@host\/x'\)/);
  });

  it("a url that does not parse as written shows no credential: query values by name, userinfo after one slash, a password where the port goes", async () => {
    const config = path.join(dir, "bad-url-secrets.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          query: { url: "http://my host/mcp?api_key=hunter2&x=1&password=hunter2&key=hunter2" },
          slash: { url: "http:/user:hunter2@host/mcp" },
          port: { url: "http://user:hunter2" },
          fragment: { url: "http://host:abc/mcp#token=hunter2" },
        },
      }),
    );
    const { code, report, stderr } = await validate(["--config", config]);
    assert.equal(code, 1);
    const write = "write it as http(s)://host[:port]/path (a host holds no spaces; in the path, write a space or another character a URL cannot hold percent-encoded, %20)";
    const notPort = "the part after ':' in its host is not a port number (a whole number from 1 to 65535; a password goes before '@host')";
    assert.deepEqual(
      report.problems.map((p) => p.replace(/^[^ ]+ /, "")),
      [
        `mcpServers.query: field 'url' is not a valid URL: its host 'my host' holds a space (got 'http://my host/mcp?api_key=***&x=1&password=***&key=***'); ${write}`,
        "mcpServers.slash: field 'url' must start with http:// or https:// (got 'http:/***@host/mcp')",
        `mcpServers.port: field 'url' is not a valid URL: ${notPort} (got 'http://user:***'); ${write}`,
        `mcpServers.fragment: field 'url' is not a valid URL: ${notPort} (got 'http://host:***/mcp#token=***'); ${write}`,
      ],
    );
    assert.doesNotMatch(JSON.stringify(report) + stderr, /hunter2/);
  });

  it("an envFile line that is not KEY=VALUE and an unclosed ${ are problems with their line; the line's text is not shown", async () => {
    const folder = path.join(dir, "envfile");
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, ".env"), "A=1\nSECRET-VALUE-NO-EQUALS\n# a comment\n\nB=${UNCLOSED\n");
    const config = path.join(folder, "agent-tools.config.json");
    writeFileSync(config, `{\n  "mcpServers": {\n    "e": { "command": "node", "envFile": ".env", "env": { "X": "Bearer \${TOKEN" } }\n  }\n}\n`);
    const { code, report } = await validate(["--config", config]);
    assert.equal(code, 1);
    const envFile = path.join(folder, ".env");
    assert.deepEqual(report.problems, [
      `${config}:3:64: mcpServers.e: field 'env.X' opens '\${' without a closing '}'; write \${NAME} (or \${NAME:-default}), or $\${ for a literal '\${' (a template or a password that holds one)`,
      `${config}:3:42: mcpServers.e: field 'envFile' names ${envFile}, whose line 2 is not KEY=VALUE (a name of letters, digits and '_', then '='), a # comment or blank`,
      `${config}:3:42: mcpServers.e: field 'envFile' names ${envFile}, whose line 5 (B) opens '\${' without a closing '}'; write \${NAME}, or $\${ for a literal '\${'`,
    ]);
    assert.doesNotMatch(report.problems.join("\n"), /SECRET-VALUE/);
  });

  it("headers, env and args of the wrong type are described, not quoted: they carry credentials whatever their keys", async () => {
    const config = path.join(dir, "wrong-blocks.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          hs: { url: "https://mcp.example.com/mcp", headers: "Authorization: Bearer hdrStr_0123456789abcdef" },
          ea: { command: "node", env: ["GITHUB_TOKEN=ghp_envArrTok0123456789abcdef"] },
          as: { command: "node", args: "--token argStr_0123456789abcdef" },
          ha: { url: "https://mcp.example.com/mcp", headers: { Authorization: ["Bearer arrTok_0123456789abcdef"] } },
        },
      }),
    );
    const { code, report, stderr } = await validate(["--config", config]);
    assert.equal(code, 1, stderr);
    assert.match(problemLike(report, /mcpServers\.hs:/), /field 'headers' must be object \(got a string of 45 characters\)$/);
    assert.match(problemLike(report, /mcpServers\.ea:/), /field 'env' must be object \(got an array of 1 item\)$/);
    assert.match(problemLike(report, /mcpServers\.as:/), /field 'args' must be array \(got a string of 31 characters\)$/);
    assert.match(problemLike(report, /mcpServers\.ha:/), /field 'headers\.Authorization' must be string \(got an array of 1 item\)$/);
    assert.doesNotMatch(JSON.stringify(report) + stderr, /hdrStr_|ghp_envArrTok|argStr_|arrTok_/);
  });

  it("two keys that make one prefix are named both, the fix is another key; an empty key is refused", async () => {
    const config = path.join(dir, "clash.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { "My Server": { command: process.execPath }, my_server: { command: process.execPath } } }));
    const clash = await validate(["--config", config]);
    assert.equal(clash.code, 1);
    assert.deepEqual(clash.report.problems, [
      `${config}: mcpServers entry 'my_server' makes the prefix 'my_server' (its key lower-cased, other characters than letters, digits, '_' and '-' made '_'), which the entry 'My Server' already has; rename one of the two keys`,
    ]);
    assert.doesNotMatch(clash.report.problems[0] as string, /field 'prefix'/);

    writeFileSync(config, `{"mcpServers": {"": {"command": "node"}}}`);
    const empty = await validate(["--config", config]);
    assert.equal(empty.code, 1);
    assert.deepEqual(empty.report.problems, [`${config}:1:17: mcpServers: a server's key is its name and its tools' prefix, and this one is empty; give it a name such as "github"`]);
  });
});

describe("cli plugins: the program every call would refuse", () => {
  it("a relative program the plugin folder lacks, a folder, and a program no allowlist admits are problems; an allowlisted one is not", async () => {
    const plugins = path.join(dir, "cli-plugins");
    const cli = (name: string, block: Record<string, unknown>): string => writePlugin(path.join(plugins, `agent-tools-plugin-${name}`), { name, prefix: name, description: "x", adapter: { kind: "cli", tools: [{ name: "run", argv: [] }], ...block } });
    const missing = cli("clirel", { program: "./tool.sh", allowlist: ["./tool.sh"] });
    const folder = cli("clidir", { program: "./sub", allowlist: ["./sub"] });
    mkdirSync(path.join(folder, "sub"));
    cli("clibare", { program: "ls" });
    const good = cli("cligood", { program: "./tool.sh", allowlist: ["./tool.sh"] });
    writeFileSync(path.join(good, "tool.sh"), "#!/bin/sh\necho ok\n");
    chmodSync(path.join(good, "tool.sh"), 0o755);
    const { code, report } = await validate([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: plugins }));
    assert.equal(code, 1);
    problemLike(report, new RegExp(`^${missing}/plugin\\.json:\\d+:\\d+: field 'adapter\\.program' names '${missing}/tool\\.sh', which does not exist$`));
    problemLike(report, new RegExp(`^${folder}/plugin\\.json:\\d+:\\d+: field 'adapter\\.program' names '${folder}/sub', which is a folder, not a program$`));
    problemLike(report, /clibare\/plugin\.json:\d+:\d+: field 'adapter\.program' names 'ls', which every call refuses: program 'ls' \(.*\) is not allowlisted: add 'ls' to the plugin's adapter\.allowlist \(its plugin\.json\), or 'ls' to \$AGENT_CLI_ALLOWLIST/);
    assert.equal(report.problems.flatMap((p) => p.split("\n")).length, 3, report.problems.join("\n"));
  });
});

describe("a required program named by a variable that is set", () => {
  it("says the variable is set and what is wrong with what it names, not 'set it'; its value is not quoted", async () => {
    const plugins = path.join(dir, "bin-var-plugins");
    writePlugin(path.join(plugins, "agent-tools-plugin-binvar"), { name: "binvar", prefix: "binvar", description: "x", requires: { bins: ["${VT_TOOL_BIN:-vt-tool-not-installed}"] }, adapter: { kind: "cli", program: "${VT_TOOL_BIN:-vt-tool-not-installed}", tools: [{ name: "run", argv: [] }] } });
    const folder = path.join(dir, "bin-var-folder");
    mkdirSync(folder, { recursive: true });
    const plain = path.join(dir, "bin-var-plain.sh");
    writeFileSync(plain, "echo hi\n");
    chmodSync(plain, 0o644);
    const statusWith = async (value: string): Promise<string | undefined> => (await validate([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: plugins, VT_TOOL_BIN: value }))).report.plugins.find((p) => p.prefix === "binvar")?.status;
    assert.equal(await statusWith(folder), "not configured: VT_TOOL_BIN is set, but the program it names is a folder, not a program; set VT_TOOL_BIN to the vt-tool-not-installed program or unset it to use vt-tool-not-installed from PATH");
    assert.match((await statusWith(plain)) ?? "", /^not configured: VT_TOOL_BIN is set, but the program it names is not executable/);
    assert.doesNotMatch((await statusWith(plain)) ?? "", /bin-var-plain/);
    const unset = (await validate([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: plugins }))).report.plugins.find((p) => p.prefix === "binvar")?.status;
    assert.equal(unset, "not configured: set VT_TOOL_BIN to the vt-tool-not-installed program or install vt-tool-not-installed on PATH");
  });
});

describe("settings sent literally that were surely meant otherwise", () => {
  it("'$VAR' without braces and an Express-style ':id' path segment are notices with the fix, at their positions; a lower-case '$' word and a shell script are left alone", async () => {
    const plugins = path.join(dir, "literal-plugins");
    writePlugin(path.join(plugins, "agent-tools-plugin-n2"), {
      name: "n2",
      prefix: "n2",
      adapter: {
        kind: "rest",
        baseUrl: "http://127.0.0.1:9/api",
        auth: { type: "bearer", token: "$NOTES_TOKEN" },
        headers: { "X-Pass": "pa$word" },
        tools: [{ name: "get_note", method: "GET", path: "/notes/:id" }, { name: "batch", method: "POST", path: "/files:batchGet" }],
      },
    });
    writePlugin(path.join(plugins, "agent-tools-plugin-sh"), {
      name: "sh",
      prefix: "sh",
      adapter: { kind: "cli", program: "sh", allowlist: ["sh"], tools: [{ name: "home", argv: ["-c", "echo $HOME"], readonly: true }] },
    });
    const { code, report, stderr } = await validate(["--plugins-dir", plugins], baseEnv({ NOTES_TOKEN: "secret-token-123456" }));
    assert.equal(code, 0, "notices, not problems: either may be meant");
    assert.deepEqual(report.problems, []);
    const notices = (report.notices ?? []).filter((line) => line.includes("agent-tools-plugin-"));
    assert.deepEqual(
      notices.map((line) => line.replace(/^.*agent-tools-plugin-/, "")),
      [
        "n2/plugin.json:1:120: field 'adapter.auth.token' has $NOTES_TOKEN without braces, which is used as written (only ${NAME} is read from the environment): did you mean ${NOTES_TOKEN}?",
        "n2/plugin.json:1:217: field 'adapter.tools[0].path' has ':id', which is requested as written (a placeholder is {name}, not Express's :name): did you mean '/notes/{id}'?",
      ],
      stderr,
    );
  });
});
