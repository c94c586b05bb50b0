import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { baseEnv, callJson, connect, runCli, writePlugin, type Connected } from "./helpers.js";

// A rest or cli tool whose mapping (path placeholder, query map, body field, argv placeholder,
// optional group) disagrees with its own inputSchema could never be called, and every refusal
// blamed the caller. Now each disagreement is a problem of plugin.json at its line, in
// `agent-tools validate` (the CLI binary), in help's problems and in the answer of a use; and a
// schema built from parts, which the load cannot compare, is answered as the plugin's fault.

const PATH = [CLI_FIXTURES, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter);
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required });

let dir: string;
let backend: TestServer;
before(async () => {
  backend = await startServer((req, res) => sendJson(res, 200, { url: req.url }));
  dir = mkdtempSync(path.join(tmpdir(), "agent-tools-mapping-check-"));
});
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A plugins folder with one plugin of `adapter`; its plugin.json path. */
function pluginFolder(name: string, adapter: Record<string, unknown>): { plugins: string; file: string } {
  const plugins = path.join(dir, name);
  const folder = writePlugin(path.join(plugins, `agent-tools-plugin-${name}`), { name, prefix: name, description: `${name} (tests only)`, adapter });
  return { plugins, file: path.join(folder, "plugin.json") };
}

async function validate(plugins: string): Promise<{ code: number | null; ok: boolean; problems: string[] }> {
  const run = await runCli(["validate", "--plugins-dir", plugins], baseEnv({ PATH }));
  const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[] };
  return { code: run.code, ok: report.ok, problems: report.problems.flatMap((p) => p.split("\n")) };
}

describe("a mapping that disagrees with the tool's inputSchema is a problem of plugin.json", () => {
  it("rest: a path placeholder, a query map and a body field each name the property they lack and the rename", async () => {
    const { plugins, file } = pluginFolder("rbad", {
      kind: "rest",
      baseUrl: "http://127.0.0.1:9",
      tools: [
        { name: "get_note", path: "/notes/{id}", inputSchema: object({ noteId: { type: "integer" } }, ["noteId"]) },
        { name: "list_notes", path: "/notes", query: { q: "query" }, inputSchema: object({ q: { type: "string" } }) },
        { name: "create_note", method: "POST", path: "/notes", body: ["title", "body"], inputSchema: object({ title: { type: "string" } }, ["title"]) },
        { name: "tag_note", method: "POST", path: "/notes/{id}/tags", body: ["tag"], inputSchema: object({ id: { type: "string" }, tag: { type: "string" }, colour: { type: "string" } }) },
        // Agrees: the query map reads its argument `search` into the parameter `q`.
        { name: "search", path: "/notes", query: { q: "search" }, inputSchema: object({ search: { type: "string" } }) },
      ],
    });
    const { code, ok, problems } = await validate(plugins);
    assert.equal(code, 1);
    assert.equal(ok, false);
    const at = (line: string) => new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:1:\\d+: ${line}`);
    const expected = [
      at(
        "field 'adapter\\.tools\\[0\\]\\.path' reads argument 'id' \\(path placeholder \\{id\\}\\), but the tool's inputSchema declares no property 'id' \\(it declares: noteId\\), so no call can reach it; make the two names meet: rename the placeholder to \\{noteId\\}, or rename the property 'noteId' to 'id'$",
      ),
      at(
        "field 'adapter\\.tools\\[1\\]\\.query\\.q' reads argument 'query' \\(query parameter 'q'\\), but the tool's inputSchema declares no property 'query' \\(it declares: q\\), so no call can reach it; make the two names meet: read it from 'q' \\(query: \\{ \"q\": \"q\" \\}, a map of query parameter to argument\\), or rename the property 'q' to 'query'$",
      ),
      at("field 'adapter\\.tools\\[2\\]\\.body\\[1\\]' reads argument 'body' \\(body field 'body'\\), but the tool's inputSchema declares no property 'body' \\(it declares: title\\), so no call can reach it; make the two names meet: declare 'body' in its properties, or make the body field 'body' read one it declares$"),
      at("field 'adapter\\.tools\\[3\\]\\.inputSchema\\.required' does not list 'id', which the path placeholder \\{id\\} needs on every call; add 'id' to required"),
      at("field 'adapter\\.tools\\[3\\]\\.inputSchema\\.properties\\.colour' is read by nothing in the tool's request \\(which reads only: id, tag\\), so every call that passes 'colour' is refused; map it \\(query: \\{ \"colour\": \"colour\" \\}, or body: \\{ \"colour\": \"colour\" \\}\\), or remove the property$"),
    ];
    assert.equal(problems.length, expected.length, problems.join("\n"));
    for (const pattern of expected) assert.ok(problems.some((p) => pattern.test(p)), `${pattern}\n${problems.join("\n")}`);
    assert.ok(!problems.some((p) => p.includes("tools[4]")), "the tool whose map agrees is no problem");
  });

  it("cli: a misspelt argv placeholder and a property argv has no place for are problems; a flag group or a placeholder that agrees is none", async () => {
    const { plugins, file } = pluginFolder("cbad", {
      kind: "cli",
      program: "argv-json",
      allowlist: ["argv-json"],
      tools: [
        { name: "greet", argv: ["greet", "--name", "{nmae}"], readonly: true, inputSchema: object({ name: { type: "string" } }, ["name"]) },
        { name: "greet_lang", argv: ["greet", "--name", "{name}"], optional: { shout: ["--shout"] }, readonly: true, inputSchema: object({ name: { type: "string" }, shout: { type: "boolean" }, lang: { type: "string" } }, ["name"]) },
        { name: "greet_ok", argv: ["greet", "--name", "{name}"], optional: { shout: ["--shout"] }, readonly: true, inputSchema: object({ name: { type: "string" }, shout: { type: "boolean" } }, ["name"]) },
      ],
    });
    const { code, problems } = await validate(plugins);
    assert.equal(code, 1);
    const prefix = `${file}:1:`;
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.ok(problems.every((p) => p.startsWith(prefix)), problems.join("\n"));
    assert.match(problems[0] ?? "", /field 'adapter\.tools\[0\]\.argv\[2\]' reads argument 'nmae' \(argv placeholder \{nmae\}\), but the tool's inputSchema declares no property 'nmae' \(it declares: name\), so no call can reach it; make the two names meet: rename the placeholder to \{name\}, or rename the property 'name' to 'nmae'$/);
    assert.match(
      problems[1] ?? "",
      /field 'adapter\.tools\[1\]\.inputSchema\.properties\.lang' is read by nothing in the tool's argv \(which reads only: name, shout\), so every call that passes 'lang' is refused; give it a place in argv \(an optional group, "lang": \["--lang", "\{lang\}"\], or a placeholder \{lang\}\), or remove the property$/,
    );
  });

  it("over stdio (the catalog cache on, as by default), a use answers the manifest's problem with a hint that arguments cannot fix it, and help lists it", async () => {
    const { plugins } = pluginFolder("rcall", {
      kind: "rest",
      baseUrl: backend.url,
      tools: [{ name: "get_note", path: "/notes/{id}", inputSchema: object({ noteId: { type: "integer" } }, ["noteId"]) }],
    });
    const server = await connect(plugins, { AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") });
    try {
      const sent = backend.requests.length;
      for (const args of [{ noteId: 3 }, { id: 3 }]) {
        const { payload, isError } = await callJson(server.client, "agent_tools_rcall_call", { toolName: "get_note", arguments: args });
        assert.equal(isError, true);
        assert.equal(payload.error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
        assert.match(payload.error?.message ?? "", /field 'adapter\.tools\[0\]\.path' reads argument 'id' \(path placeholder \{id\}\)/);
        assert.match(payload.error?.hint ?? "", /Fix the plugin's manifest.*tell the user\. Tool arguments cannot fix this/);
      }
      assert.equal(backend.requests.length, sent, "nothing was sent");
      const help = await callJson(server.client, "agent_tools_help", {});
      const problems = (help.payload.problems as string[] | undefined) ?? [];
      assert.ok(problems.some((p) => p.includes("'rcall'") && p.includes("reads argument 'id' (path placeholder {id})")), JSON.stringify(help.payload));
      assert.match(server.stderr(), /plugin 'rcall' cannot be used: .*reads argument 'id' \(path placeholder \{id\}\)/, "said in the server's log");
    } finally {
      await server.close();
    }
  });

  it("over stdio with the catalog cache off, the plugin does not load and help says why", async () => {
    const { plugins } = pluginFolder("ccall", {
      kind: "cli",
      program: "argv-json",
      allowlist: ["argv-json"],
      tools: [{ name: "greet", argv: ["greet", "{nmae}"], inputSchema: object({ name: { type: "string" } }, ["name"]) }],
    });
    const server = await connect(plugins, { PATH });
    try {
      const help = await callJson(server.client, "agent_tools_help", {});
      const problems = (help.payload.problems as string[] | undefined) ?? [];
      assert.ok(problems.some((p) => p.includes("agent-tools-plugin-ccall") && p.includes("reads argument 'nmae' (argv placeholder {nmae})")), JSON.stringify(help.payload));
      const { payload } = await callJson(server.client, "agent_tools_search", { query: "greet" });
      assert.doesNotMatch(JSON.stringify(payload), /ccall:greet/, "the tool is not advertised");
    } finally {
      await server.close();
    }
  });
});

describe("a schema built from parts, which the load cannot compare, is answered as the plugin's fault at the call", () => {
  let server: Connected;
  before(async () => {
    const plugins = path.join(dir, "parts");
    writePlugin(path.join(plugins, "agent-tools-plugin-rparts"), {
      name: "rparts",
      prefix: "rparts",
      description: "REST tools with composed schemas (tests only)",
      adapter: {
        kind: "rest",
        baseUrl: backend.url,
        tools: [
          { name: "get_note", path: "/notes/{id}", inputSchema: { allOf: [object({ noteId: { type: "integer" } }, ["noteId"])] } },
          { name: "list_notes", path: "/notes", query: ["q"], inputSchema: { allOf: [object({ q: { type: "string" }, lang: { type: "string" } })] } },
        ],
      },
    });
    writePlugin(path.join(plugins, "agent-tools-plugin-cparts"), {
      name: "cparts",
      prefix: "cparts",
      description: "A CLI tool with a composed schema (tests only)",
      adapter: {
        kind: "cli",
        program: "argv-json",
        allowlist: ["argv-json"],
        tools: [{ name: "greet", argv: ["greet", "{name}"], parse: "json", readonly: true, inputSchema: { allOf: [object({ name: { type: "string" }, lang: { type: "string" } }, ["name"])] } }],
      },
    });
    server = await connect(plugins, { PATH });
  });
  after(async () => {
    await server.close();
  });

  const brokenHint = /fault in the plugin's manifest, not in your arguments: changing them cannot fix it\. Tell the user/;

  it("rest: a path placeholder the schema does not declare, and a declared property the request has no place for", async () => {
    const sent = backend.requests.length;
    const path1 = await callJson(server.client, "agent_tools_rparts_call", { toolName: "get_note", arguments: { noteId: 3 } });
    assert.equal(path1.payload.error?.code, "NOT_CONFIGURED", JSON.stringify(path1.payload));
    assert.equal(path1.payload.error?.message, "tool 'get_note' is broken: its path placeholder {id} reads argument 'id', which its inputSchema does not declare; its manifest's mapping and inputSchema disagree, so no arguments can make this call work");
    assert.match(path1.payload.error?.hint ?? "", brokenHint);
    const extra = await callJson(server.client, "agent_tools_rparts_call", { toolName: "list_notes", arguments: { q: "a", lang: "fr" } });
    assert.equal(extra.payload.error?.code, "NOT_CONFIGURED", JSON.stringify(extra.payload));
    assert.match(extra.payload.error?.message ?? "", /^tool 'list_notes' is broken: its inputSchema declares 'lang', but its mapping has no place for it;/);
    assert.match(extra.payload.error?.hint ?? "", brokenHint);
    assert.equal(backend.requests.length, sent, "nothing was sent");
    // What the schema declares and the mapping reads still goes through.
    const right = await callJson(server.client, "agent_tools_rparts_call", { toolName: "list_notes", arguments: { q: "a" } });
    assert.equal((right.payload.result as { data: { url: string } }).data.url, "/notes?q=a", JSON.stringify(right.payload));
  });

  it("cli: a declared property argv has no place for; an argument the schema does not declare stays the caller's to fix", async () => {
    const broken = await callJson(server.client, "agent_tools_cparts_call", { toolName: "greet", arguments: { name: "Ada", lang: "fr" } });
    assert.equal(broken.payload.error?.code, "NOT_CONFIGURED", JSON.stringify(broken.payload));
    assert.match(broken.payload.error?.message ?? "", /^tool 'greet' is broken: its inputSchema declares 'lang', but its mapping has no place for it;/);
    assert.match(broken.payload.error?.hint ?? "", brokenHint);
    const typo = await callJson(server.client, "agent_tools_cparts_call", { toolName: "greet", arguments: { name: "Ada", nmae: "x" } });
    assert.equal(typo.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(typo.payload));
    assert.match(typo.payload.error?.message ?? "", /'nmae' is not a parameter of 'greet' \(it takes: name\)/);
    const right = await callJson(server.client, "agent_tools_cparts_call", { toolName: "greet", arguments: { name: "Ada" } });
    assert.deepEqual((right.payload.result as { stdout: { argv: string[] } }).stdout.argv, ["greet", "Ada"], JSON.stringify(right.payload));
  });
});
