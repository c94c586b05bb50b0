import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseCliSpec } from "../src/adapters/cli/index.js";
import { CliSpecError } from "../src/adapters/cli/errors.js";
import { McpSpecError, parseMcpSpec } from "../src/adapters/mcp/index.js";
import { RestSpecError } from "../src/adapters/rest/errors.js";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import { silentLogger } from "../src/log.js";
import { SPEC_DATA_FILES } from "../scripts/spec-schemas.js";
import { BLOCK_DATA_FILE, MANIFEST_DATA_FILE, SPEC_SCHEMAS } from "../scripts/spec-table.js";
import { baseEnv, runCli } from "./helpers.js";

// One validation style: the config file, plugin.json and every adapter kind's block are checked
// against schemas, and every problem of a file is reported at once, each at its line and column,
// naming the field, what is wrong and (for a misspelt key) what was meant.

/** The problems `agent-tools validate` printed for one file, one line each. */
function problemLines(stderr: string, file: string): string[] {
  return stderr.split("\n").filter((l) => l.includes(file));
}

describe("the schemas a start reads are the TypeBox schemas as data", () => {
  for (const [file, source] of Object.entries(SPEC_DATA_FILES)) {
    it(`${file} is current (else run npm run schema:specs)`, () => {
      assert.equal(readFileSync(new URL(`../${file}`, import.meta.url), "utf8"), source(), `${file} is stale: run \`npm run schema:specs\``);
    });
  }

  it("one table (scripts/spec-table.ts) names each schema's data and validator: the runtime registers exactly the validators generated from it", async () => {
    const folder = new URL("../src/validators.generated/", import.meta.url);
    // Each file exports the validator it is named after, and only it.
    const generated = readdirSync(folder)
      .map((file) => {
        const exported = Object.keys(createRequire(import.meta.url)(fileURLToPath(new URL(file, folder))) as Record<string, unknown>);
        assert.deepEqual(exported, [path.basename(file, ".cjs")], `${file} exports its own validator`);
        return exported[0]!;
      })
      .sort();
    const modules: Record<string, Record<string, unknown> & { PRECOMPILED: readonly (readonly [object, string])[] }> = {
      [BLOCK_DATA_FILE]: await import("../src/adapters/block-schema-data.js"),
      [MANIFEST_DATA_FILE]: await import("../src/plugins/manifest-schema-data.js"),
    };
    assert.deepEqual(Object.keys(modules).sort(), Object.keys(SPEC_DATA_FILES).sort(), "every data file the table writes");
    const registered = Object.values(modules).flatMap((m) => m.PRECOMPILED.map(([, name]) => name));
    assert.deepEqual(["config", "serverEntry", ...registered].sort(), generated, "the data files register every generated validator but the config's, and no other");
    for (const entry of SPEC_SCHEMAS) {
      const pair = modules[entry.file]!.PRECOMPILED.find(([, name]) => name === entry.validator);
      assert.ok(pair, `${entry.validator} is registered from ${entry.file}`);
      assert.equal(pair[0], modules[entry.file]![entry.data], `${entry.validator} checks ${entry.data}`);
      assert.deepEqual(pair[0], JSON.parse(JSON.stringify(entry.schema)), `${entry.data} is its TypeBox schema as data`);
    }
  });
});

describe("plugin.json: every problem at once, at its line and column", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-schemas-"));
    const plugin = path.join(dir, "agent-tools-plugin-broken");
    mkdirSync(plugin);
    // Problems in the manifest and in its rest block; line numbers are counted in the asserts.
    writeFileSync(
      path.join(plugin, "plugin.json"),
      `{
  // a hand-written manifest with seven problems
  "name": "broken",
  "prefix": "broken",
  "readOnlyTools": ["list"],
  "requireConfirm": "no",
  "adapter": {
    "kind": "rest",
    "baseUrl": "https://api.example.com",
    "timeoutMs": 0,
    "auth": { "type": "oauth" },
    "tools": [
      { "nmae": "list", "path": "/items" },
      { "name": "get", "path": "/items/{id}", "paginate": { "style": "cursor" } },
    ],
  },
}`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("agent-tools validate lists each one with file:line:column, did-you-mean for misspelt keys", async () => {
    const run = await runCli(["validate", "--plugins-dir", dir], baseEnv());
    assert.equal(run.code, 1, run.stderr);
    const lines = problemLines(run.stderr, "agent-tools-plugin-broken/plugin.json");
    // In the order of the file, top to bottom (a schema reports auth.type before timeoutMs).
    const expected = [
      /plugin\.json:5:3: field 'readOnlyTools' is not a setting of a plugin manifest; did you mean 'readonlyTools'\?/,
      /plugin\.json:6:21: field 'requireConfirm' must be true or false/,
      /plugin\.json:10:18: field 'adapter\.timeoutMs' must be a whole number of milliseconds from 1 to 2147483647 \(about 24\.8 days, the longest a timer waits\)/,
      /plugin\.json:11:23: field 'adapter\.auth\.type' must be one of bearer, header, query, login \(got "oauth"\)/,
      /plugin\.json:13:7: field 'adapter\.tools\[0\]\.name' is required; it must be 1-128 letters, digits/,
      /plugin\.json:13:9: field 'adapter\.tools\[0\]\.nmae' is not a setting of a rest tool; did you mean 'name'\?/,
      /plugin\.json:14:70: field 'adapter\.tools\[1\]\.paginate\.style' must be "link" or "page"/,
    ];
    assert.equal(lines.length, expected.length, lines.join("\n"));
    expected.forEach((pattern, i) => assert.match(lines[i] ?? "", pattern, lines.join("\n")));
    for (const line of lines) assert.match(line, /^agent-tools validate: /, "each problem is a line of its own");
    assert.doesNotMatch(run.stderr, /more problem/);
    // The JSON report: one entry per problem, in the same order, not one entry of joined lines.
    const report = JSON.parse(run.stdout) as { problems: string[] };
    const entries = report.problems.filter((p) => p.includes("agent-tools-plugin-broken/plugin.json"));
    assert.equal(entries.length, expected.length, JSON.stringify(report.problems, null, 2));
    expected.forEach((pattern, i) => assert.match(entries[i] ?? "", pattern));
    for (const entry of entries) assert.doesNotMatch(entry, /\n/);
  });
});

describe("the config file: every problem at once, at its line and column", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-schemas-config-"));
    writeFileSync(
      path.join(dir, "agent-tools.config.json"),
      `{
  "mcpServers": {
    "files": { "command": "npx", "arg": ["-y", "x"], "timeoutMs": -5 }
  },
  "http": { "prot": 8080 },
  "plugins": { "disable": "github" },
  "facade": { "mode": "tiny" }
}`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("agent-tools validate lists each one with file:line:column", async () => {
    const file = path.join(dir, "agent-tools.config.json");
    const run = await runCli(["validate", "--config", file], baseEnv());
    assert.notEqual(run.code, 0);
    const lines = problemLines(run.stderr, "agent-tools.config.json");
    const expected = [
      /config\.json:3:34: mcpServers\.files: 'arg' is not a setting of a server entry; did you mean 'args'\?/,
      /config\.json:3:67: mcpServers\.files: field 'timeoutMs' must be >= 1 \(got -5\)/,
      /config\.json:5:13: field 'http\.prot' is not a known setting; did you mean 'port'\?/,
      /config\.json:6:27: field 'plugins\.disable' must be array \(got "github"\)/,
      /config\.json:7:23: field 'facade\.mode' must be one of "per-plugin", "compact" \(got "tiny"\)/,
    ];
    for (const pattern of expected) assert.ok(lines.some((l) => pattern.test(l)), `${pattern}\n${lines.join("\n")}`);
    assert.equal(lines.length, expected.length, lines.join("\n"));
  });
});

describe("adapter blocks: problems come from the block's schema, all at once", () => {
  it("rest: every field named, unknown keys with a did-you-mean", async () => {
    const spec = { kind: "rest", baseUrl: "http://127.0.0.1:1", headrs: {}, tools: [{ name: "a b", path: "/x", readonly: "yes" }, { name: "ok", path: "/y", result: { pick: [] } }] };
    await assert.rejects(
      async () => createRestAdapter(spec, { pluginDir: tmpdir(), manifest: {}, env: {}, log: silentLogger }),
      (error: unknown) => {
        assert.ok(error instanceof RestSpecError);
        assert.deepEqual(
          error.problems.map((p) => `${p.field} ${p.message}`),
          [
            "headrs is not a setting of a rest block; did you mean 'headers'?",
            "tools[0].name must be 1-128 letters, digits, '_' or '-'",
            "tools[0].readonly must be true or false",
            "tools[1].result.pick is not a result option (itemsPath, drop, fields, first)",
          ],
        );
        return true;
      },
    );
  });

  it("mcp and cli: the same style, each kind's own error class", () => {
    assert.throws(
      () => parseMcpSpec({ kind: "mcp", command: "node", args: [{}], timeoutMs: "soon", comand: "x" }),
      (error: unknown) => {
        assert.ok(error instanceof McpSpecError);
        assert.deepEqual(error.problems.map((p) => `${p.field} ${p.message}`).sort(), [
          "adapter.args[0] must be a string",
          "adapter.comand is not a setting of an mcp block; did you mean 'command'?",
          "adapter.timeoutMs must be a positive number of milliseconds, at most 2147483647 (about 24.8 days, the longest a timer waits)",
        ]);
        return true;
      },
    );
    assert.throws(
      () => parseCliSpec({ kind: "cli", program: "gh", env: { "BAD-NAME": "x" }, tools: [{ name: "v", argv: ["view"], parse: "yaml", optinal: {} }] }),
      (error: unknown) => {
        assert.ok(error instanceof CliSpecError);
        const said = error.problems.map((p) => `${p.field} ${p.message}`);
        assert.ok(said.includes("adapter.env.BAD-NAME is not a valid variable name"), said.join("\n"));
        assert.ok(said.includes('adapter.tools[0].parse must be "json" or "text"'), said.join("\n"));
        assert.ok(said.includes("adapter.tools[0].optinal is not a setting of a cli tool; did you mean 'optional'?"), said.join("\n"));
        assert.equal(said.length, 3, said.join("\n"));
        return true;
      },
    );
  });
});
