import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { CliError, CliSpecError, cliRunnerFromEnv, createCliAdapter, parseCliSpec, renderArgv, parseArgvTemplate } from "../src/adapters/cli/index.js";
import { loadPlugin } from "../src/plugins/loader.js";
import { CLI_FIXTURES, GITHUB_TOKEN, cliAdapter, ctx, hostEnv, silent, tempDir } from "./fixtures/cli/helpers.js";

/** Tool derivation, argv templating, results, errors, and the plugin loader path. */

type Schema = { type: string; properties: Record<string, { type?: unknown; items?: unknown }>; required: string[]; additionalProperties: boolean };
type ArgvOut = { stdout: { argv: string[]; cwd: string } };

const gh = {
  program: "argv-json",
  allowlist: ["argv-json"],
  tools: [
    { name: "repo_view", description: "Show a repository", argv: ["repo", "view", "{owner}/{repo}", "--json", "name,description"], parse: "json", readonly: true, optional: { limit: ["--limit", "{limit}"] } },
    { name: "issue_create", argv: ["issue", "create", "--repo", "{repo}", "--title={title}"], parse: "json", optional: { labels: ["--label", "{labels...}"], draft: ["--draft"], body: ["--body={body}"] } },
    { name: "add", argv: ["add", "-v", "--", "{files...}"], parse: "json", optional: { force: ["--force"] } },
    { name: "raw", argv: ["plain"] },
  ],
};

describe("tool derivation", () => {
  it("derives the input schema: argv placeholders are required strings; optional groups by shape", async () => {
    const a = await cliAdapter(gh);
    const { tools } = await a.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["repo_view", "issue_create", "add", "raw"]);
    const view = tools[0]?.inputSchema as Schema;
    assert.deepEqual(Object.keys(view.properties), ["owner", "repo", "limit"]);
    assert.equal(view.properties.owner?.type, "string");
    assert.equal(view.properties.repo?.type, "string");
    assert.deepEqual(view.properties.limit?.type, ["string", "number"]);
    assert.deepEqual(view.required, ["owner", "repo"]);
    assert.equal(view.additionalProperties, false);
    const create = tools[1]?.inputSchema as Schema;
    assert.equal(create.properties.labels?.type, "array");
    assert.equal(create.properties.draft?.type, "boolean");
    assert.deepEqual(create.required, ["repo", "title"]);
    const add = tools[2]?.inputSchema as Schema;
    assert.equal(add.properties.files?.type, "array");
    assert.deepEqual(add.required, ["files"]);
    assert.equal(tools[0]?.description, "Show a repository");
    assert.match(tools[3]?.description ?? "", /argv-json plain/);
  });

  it("readonly: true → annotations.readOnlyHint true; default false", async () => {
    const { tools } = await (await cliAdapter(gh)).listTools();
    assert.equal(tools[0]?.annotations?.readOnlyHint, true);
    assert.equal(tools[1]?.annotations?.readOnlyHint, false);
  });

  it("a given inputSchema is used, closed to arguments the argv has no place for", async () => {
    const inputSchema = { type: "object", properties: { q: { type: "string", minLength: 2 } }, required: ["q"] };
    const { tools } = await (await cliAdapter({ program: "argv-json", tools: [{ name: "s", argv: ["{q}"], inputSchema }] })).listTools();
    assert.deepEqual(tools[0]?.inputSchema, { ...inputSchema, additionalProperties: false });
    // Built from parts, it cannot be closed without refusing the parts' properties: left as given.
    const parts = { allOf: [inputSchema] };
    const composed = await cliAdapter({ program: "argv-json", tools: [{ name: "s", argv: ["{q}"], inputSchema: parts }] });
    assert.deepEqual((await composed.listTools()).tools[0]?.inputSchema, parts);
  });

  it("an argument the argv has no place for is refused before anything runs, naming the near one", async () => {
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], tools: [{ name: "s", argv: ["show", "{q}"], parse: "json", optional: { limit: ["--limit", "{limit}"] }, inputSchema: { allOf: [{ type: "object" }] } }] });
    await assert.rejects(a.call("s", { q: "x", limt: 2 }, ctx()), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.equal(error.code, "ARG_VALIDATION_FAILED");
      assert.equal(error.argument, "limt");
      assert.match(error.message, /'limt' is not a parameter of 's' \(it takes: q, limit\); this tool's argv has no place for it, and nothing was run\. Did you mean 'limit'\?/);
      return true;
    });
    // A key sent as null is an unset field, not an argument.
    const ran = (await a.call("s", { q: "y", other: null }, ctx())) as ArgvOut;
    assert.deepEqual(ran.stdout.argv, ["show", "y"]);
  });

  it("spec problems name the field", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ tools: [] }, /adapter\.program/],
      [{ program: "x", tools: [] }, /adapter\.tools must be a non-empty array/],
      [{ program: "x", tools: [{ name: "a b", argv: [] }] }, /adapter\.tools\[0\]\.name/],
      [{ program: "x", tools: [{ name: "a", argv: "repo view" }] }, /adapter\.tools\[0\]\.argv must be an array/],
      [{ program: "x", tools: [{ name: "a", argv: ["ok", 3] }] }, /adapter\.tools\[0\]\.argv\[1\] must be a string/],
      [{ program: "x", tools: [{ name: "a", argv: [], parse: "yaml" }] }, /adapter\.tools\[0\]\.parse/],
      [{ program: "x", tools: [{ name: "a", argv: ["{a...}{b...}"] }] }, /more than one/],
      [{ program: "x", tools: [{ name: "a", argv: ["{a}"], optional: { a: ["--a", "{a}"] } }] }, /optional\.a.*also a placeholder of argv/],
      [{ program: "x", tools: [{ name: "a", argv: [], optional: { a: ["--a", "{b}"] } }] }, /optional\.a uses \{b\}/],
      [{ program: "x", tools: [{ name: "a", argv: [] }, { name: "a", argv: [] }] }, /tools\[1\]\.name 'a' is used by an earlier tool/],
      [{ program: "x", timeoutMs: 0, tools: [{ name: "a", argv: [] }] }, /adapter\.timeoutMs must be a whole number of milliseconds from 1 to 2147483647/],
      [{ program: "x", env: { "BAD-NAME": "v" }, tools: [{ name: "a", argv: [] }] }, /adapter\.env\.BAD-NAME/],
    ];
    for (const [block, message] of cases) assert.throws(() => parseCliSpec({ kind: "cli", ...block }), (e: CliSpecError) => e instanceof CliSpecError && message.test(e.message), JSON.stringify(block));
  });

  it("defaults: timeout 120 s, output cap 1 MiB, parse text", () => {
    const spec = parseCliSpec({ kind: "cli", program: "gh", tools: [{ name: "a", argv: [] }] });
    assert.equal(spec.timeoutMs, 120_000);
    assert.equal(spec.maxOutputBytes, 1024 * 1024);
    assert.equal(spec.tools[0]?.parse, "text");
    assert.equal(spec.tools[0]?.readonly, false);
  });
});

describe("argv templating", () => {
  it("fills placeholders, one item per template item; optional groups dropped when absent", async () => {
    const a = await cliAdapter(gh);
    const bare = (await a.call("repo_view", { owner: "octo", repo: "hello" }, ctx())) as ArgvOut;
    assert.deepEqual(bare.stdout.argv, ["repo", "view", "octo/hello", "--json", "name,description"]);
    const limited = (await a.call("repo_view", { owner: "octo", repo: "hello", limit: 5 }, ctx())) as ArgvOut;
    assert.deepEqual(limited.stdout.argv, ["repo", "view", "octo/hello", "--json", "name,description", "--limit", "5"]);
    const nullLimit = (await a.call("repo_view", { owner: "octo", repo: "hello", limit: null }, ctx())) as ArgvOut;
    assert.equal(nullLimit.stdout.argv.length, 5);
  });

  it("arrays expand only where declared ({name...}); flags follow booleans", async () => {
    const a = await cliAdapter(gh);
    const full = (await a.call("issue_create", { repo: "o/r", title: "Bug: it breaks", labels: ["bug", "p1"], draft: true, body: "line 1\nline 2" }, ctx())) as ArgvOut;
    assert.deepEqual(full.stdout.argv, ["issue", "create", "--repo", "o/r", "--title=Bug: it breaks", "--label", "bug", "--label", "p1", "--draft", "--body=line 1\nline 2"]);
    const none = (await a.call("issue_create", { repo: "o/r", title: "t", labels: [], draft: false }, ctx())) as ArgvOut;
    assert.deepEqual(none.stdout.argv, ["issue", "create", "--repo", "o/r", "--title=t"]);
    await assert.rejects(a.call("issue_create", { repo: "o/r", title: "t", draft: "yes" }, ctx()), { code: "ARG_VALIDATION_FAILED", message: /'draft' is a flag/ });
    await assert.rejects(a.call("issue_create", { repo: "o/r", title: "t", labels: "bug" }, ctx()), { code: "ARG_VALIDATION_FAILED", message: /'labels' must be an array/ });
  });

  it("optional groups go before a literal '--'; spread operands after it", async () => {
    const a = await cliAdapter(gh);
    const out = (await a.call("add", { files: ["a.txt", "-odd name"], force: true }, ctx())) as ArgvOut;
    assert.deepEqual(out.stdout.argv, ["add", "-v", "--force", "--", "a.txt", "-odd name"]);
  });

  it("a missing required argument is refused, naming it", async () => {
    const a = await cliAdapter(gh);
    await assert.rejects(a.call("repo_view", { owner: "octo" }, ctx()), (e: CliError) => e.code === "ARG_VALIDATION_FAILED" && e.argument === "repo" && /'repo' is required/.test(e.message));
  });

  it("renderArgv is usable on its own", () => {
    const t = parseArgvTemplate(["x", "{a}-{b}", "{c...}"], { d: ["-d{d}"] }, "t");
    assert.deepEqual(renderArgv(t, { a: "1", b: 2, c: ["p", "q"], d: "-z" }), ["x", "1-2", "p", "q", "-d-z"]);
  });
});

describe("results", () => {
  it("parse: json returns parsed stdout; text returns text; a json tool whose stdout is not JSON fails naming the program and quoting it", async () => {
    const a = await cliAdapter({ program: "print-args", allowlist: ["print-args"], tools: [{ name: "j", argv: ["{v}"], parse: "json" }, { name: "t", argv: ["{v}"] }] });
    await assert.rejects(a.call("j", { v: "x" }, ctx()), (error: CliError) => {
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.equal(error.message, `print-args (tool 'j') answers JSON, but its stdout was not JSON (it was: "[x]"). It exited 0, so a change it makes was made: check before running it again.`);
      assert.deepEqual(error.details, { exitCode: 0, stdout: "[x]\n" });
      return true;
    });
    const text = (await a.call("t", { v: "x" }, ctx())) as { stdout: unknown };
    assert.equal(text.stdout, "[x]\n", "a text tool: text");
    const lenient = await cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "print-args" })).run("print-args", ["x"], { parse: "json" });
    assert.equal(lenient.stdout, "[x]\n", "the runner's parse stays lenient: not JSON is text");
    const viaNode = (await (await cliAdapter(gh)).call("raw", {}, ctx())) as { stdout: unknown };
    assert.equal(typeof viaNode.stdout, "string");
    assert.ok(JSON.parse(viaNode.stdout as string));
    const parsed = (await (await cliAdapter(gh)).call("repo_view", { owner: "o", repo: "r" }, ctx())) as { stdout: { argv: string[] }; exitCode: number; stderr: string };
    assert.ok(Array.isArray(parsed.stdout.argv));
    assert.equal(parsed.exitCode, 0);
    assert.equal(parsed.stderr, "");
  });

  it("stdout that is not UTF-8 is a binary descriptor (its size, how to get text), never text with U+FFFD in it", async () => {
    const BYTES = "\\000\\001\\377\\376\\200abc\\n"; // 9 bytes: NUL, 0x01, 0xff, 0xfe, 0x80, "abc\n"
    const a = await cliAdapter({
      program: "print-bytes",
      allowlist: ["print-bytes"],
      tools: [
        { name: "t", argv: ["{format}"], readonly: true },
        { name: "j", argv: ["{format}"], parse: "json", readonly: true },
        { name: "f", argv: ["{format}", "3"], readonly: true },
      ],
    });
    const binary = (await a.call("t", { format: BYTES }, ctx())) as { exitCode: number; stdout: Record<string, unknown>; stderr: string };
    assert.equal(binary.exitCode, 0);
    assert.equal(binary.stderr, "");
    assert.deepEqual(Object.keys(binary.stdout), ["binary", "contentType", "bytes", "hint"], "the shape of a REST binary body, with a hint");
    assert.deepEqual([binary.stdout.binary, binary.stdout.contentType, binary.stdout.bytes], [true, null, 9]);
    assert.match(String(binary.stdout.hint), /not UTF-8 text.*not passed on.*base64 or hex/);
    assert.ok(!JSON.stringify(binary).includes("\uFFFD"), "no replacement character anywhere");

    const text = (await a.call("t", { format: "\\357\\273\\277h\\303\\251llo \\342\\202\\254 \\360\\237\\230\\200\\n" }, ctx())) as { stdout: unknown };
    assert.equal(text.stdout, "\uFEFFhéllo € 😀\n", "UTF-8 text (a BOM, 2-, 3- and 4-byte characters) is answered exactly as it was");

    await assert.rejects(a.call("j", { format: BYTES }, ctx()), (error: CliError) => {
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.equal(error.message, "print-bytes (tool 'j') answers JSON, but it wrote a binary stdout of 9 bytes (not UTF-8 text), which is not passed on.");
      assert.deepEqual((error.details as { stdout: { bytes: number } }).stdout.bytes, 9);
      return true;
    });
    await assert.rejects(a.call("f", { format: BYTES }, ctx()), (error: CliError) => {
      assert.equal(error.message, "print-bytes (tool 'f') exited with code 3; stdout: a binary stdout of 9 bytes (not UTF-8 text)");
      return true;
    });
  });

  it("stderr that is not UTF-8 stays text, its bad bytes shown as U+FFFD: it is read by people", async () => {
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "print-bytes" }));
    const result = await runner.run("print-bytes", ["ok\\n", "0", "bad \\377 byte\\n"]);
    assert.equal(result.stdout, "ok\n");
    assert.equal(result.stderr, "bad \uFFFD byte\n");
  });

  it("a real binary: git --version", async () => {
    const a = await cliAdapter({ program: "git", allowlist: ["git"], tools: [{ name: "version", argv: ["--version"], readonly: true }] });
    const result = (await a.call("version", {}, ctx())) as { exitCode: number; stdout: string };
    assert.equal(result.exitCode, 0);
    assert.match(result.stdout, /^git version \d+\.\d+/);
  });

  it("a non-zero exit throws UPSTREAM_ERROR with the exit code and the stderr tail, redacted", async () => {
    const a = await cliAdapter({ program: "fail", allowlist: ["fail"], env: { GH_TOKEN: "${GITHUB_TOKEN}" }, tools: [{ name: "f", argv: ["{code}", "{message}"] }] });
    await assert.rejects(a.call("f", { code: "3", message: "repository not found" }, ctx()), (error: CliError) => {
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.equal(error.exitCode, 3);
      assert.match(error.message, /exited with code 3/);
      assert.match(error.message, /error: repository not found/);
      assert.match(error.message, /token was \[redacted\]/);
      assert.ok(!error.message.includes(GITHUB_TOKEN));
      assert.ok(!(error.stderr ?? "").includes(GITHUB_TOKEN));
      return true;
    });
  });

  it("the stderr tail is bounded", async () => {
    const a = await cliAdapter({ program: "fail", allowlist: ["fail"], tools: [{ name: "f", argv: ["1", "{message}"] }] });
    await assert.rejects(a.call("f", { message: "z".repeat(5000) + "END" }, ctx()), (error: CliError) => error.message.length < 1300 && error.message.endsWith("END"));
  });

  it("a program ended by a signal it was not sent by us is UPSTREAM_ERROR naming the signal", async () => {
    const a = await cliAdapter({ program: "self-kill", allowlist: ["self-kill"], tools: [{ name: "k", argv: [] }] });
    await assert.rejects(a.call("k", {}, ctx()), (error: CliError) => error.code === "UPSTREAM_ERROR" && /ended by signal SIGKILL; stderr: about to die/.test(error.message) && error.exitCode === null);
  });

  it("a missing working directory is reported as such", async () => {
    const a = await cliAdapter({ ...gh, cwd: path.join(tempDir(), "missing") });
    await assert.rejects(a.call("raw", {}, ctx()), { code: "UPSTREAM_ERROR", message: /could not be started: ENOENT \(is the working directory .*missing there\?\)/ });
  });

  it("cwd: the plugin folder by default, a relative cwd resolved against it", async () => {
    const dir = tempDir();
    const byDefault = (await (await cliAdapter(gh)).call("raw", {}, ctx())) as { stdout: string };
    assert.equal((JSON.parse(byDefault.stdout) as { cwd: string }).cwd, CLI_FIXTURES);
    const relative = (await (await cliAdapter({ ...gh, cwd: path.relative(CLI_FIXTURES, dir) })).call("repo_view", { owner: "o", repo: "r" }, ctx())) as ArgvOut;
    assert.equal(relative.stdout.cwd, dir);
  });

  it("an unknown tool is UNKNOWN_TOOL listing the known ones", async () => {
    await assert.rejects((await cliAdapter(gh)).call("nope", {}, ctx()), { code: "UNKNOWN_TOOL", message: /known: repo_view, issue_create/ });
  });
});

describe("text-layer runner", () => {
  it("returns a non-zero exit as a value; check: true throws UPSTREAM_ERROR", async () => {
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "fail,git" }));
    const result = await runner.run("fail", ["4", "nope"]);
    assert.equal(result.exitCode, 4);
    assert.equal(result.stdout, "partial output\n");
    assert.match(result.stderr, /error: nope/);
    await assert.rejects(runner.run("fail", ["4", "nope"], { check: true }), { code: "UPSTREAM_ERROR", message: /exited with code 4; stderr: error: nope/ });
    const git = await runner.run("git", ["--version"]);
    assert.match(git.stdout as string, /^git version/);
    await assert.rejects(runner.run("git", ["a\0b"]), { code: "ARG_VALIDATION_FAILED" });
  });
});

describe("plugin loader", () => {
  it("a plugin.json with a cli block loads through adapterKinds and calls", async () => {
    const { plugin } = await loadPlugin(path.join(CLI_FIXTURES, "agent-tools-plugin-clidemo"), { env: hostEnv(), log: silent, adapterKinds: { cli: createCliAdapter } });
    assert.ok(plugin.adapter);
    const { tools } = await plugin.adapter.listTools();
    assert.equal(tools[0]?.annotations?.readOnlyHint, true);
    const result = (await plugin.adapter.call("repo_view", { owner: "octo", repo: "hello", limit: 2 }, ctx())) as ArgvOut;
    assert.deepEqual(result.stdout.argv, ["repo", "view", "octo/hello", "--json", "name,description", "--limit", "2"]);
  });
});
