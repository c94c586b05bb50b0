import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";
import { eventually } from "./http-helpers.js";

/**
 * ARG_VALIDATION_FAILED against schemas shaped as real servers emit them (over stdio, against the
 * built server and test/fixtures/mcp/lax-handshake-server.mjs --schema-shapes): unions whose
 * branches carry a const tag, pydantic's `$defs` models, a pattern only plain JS regex syntax takes.
 */

const SERVER = path.join(FIXTURES, "mcp", "lax-handshake-server.mjs");
let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-schema-shapes-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [SERVER, "--schema-shapes"] } } }));
  conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off" });
});
after(async () => {
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (toolName: string, args: Record<string, unknown>) => callJson(conn.client, "agent_tools_lax_call", { toolName, arguments: args });

async function refusal(toolName: string, args: Record<string, unknown>): Promise<{ message: string; errors: { path: string; message: string; schema?: Record<string, unknown> }[] }> {
  const { payload, isError } = await call(toolName, args);
  assert.equal(isError, true, JSON.stringify(payload));
  assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
  return { message: payload.error?.message ?? "", errors: payload.error?.details?.errors as never };
}

describe("a const that does not match names the allowed values", () => {
  it("a const at the top: the value it must be", async () => {
    const { message } = await refusal("unions", { mode: "slow" });
    assert.equal(message, `arguments for 'unions' are invalid: /mode: 'mode' must be "fast"`);
  });

  it("the tag of a oneOf union: every branch's value, once, at the tag's path", async () => {
    const { message, errors } = await refusal("unions", { target: { kind: "org" } });
    assert.match(message, /\/target\/kind: must be one of "user" or "team"/);
    assert.doesNotMatch(message, /equal to constant/);
    assert.equal(errors.filter((e) => e.path === "/target/kind").length, 1);
  });

  it("a zod-shaped discriminated union (anyOf of one-value enums): the tags by name", async () => {
    const { message } = await refusal("unions", { shape: { kind: "triangle" } });
    assert.match(message, /\/shape\/kind: must be one of "circle" or "square"/);
  });

  it("a tag one branch takes is not called wrong: the failure of the branch it chose is said", async () => {
    const { message } = await refusal("unions", { target: { kind: "team", slug: 5 } });
    assert.doesNotMatch(message, /\/target\/kind/);
    assert.match(message, /\/target\/slug: 'target.slug' must be a string/);
    const fixed = await call("unions", { target: { kind: "team", slug: "core" } });
    assert.equal(fixed.isError, false, JSON.stringify(fixed.payload));
  });
});

describe("inside a $ref/$defs model, an unknown key gets what the inline model gets", () => {
  it("'did you mean' and the declared names, through a local $ref", async () => {
    const { message, errors } = await refusal("refs", { home: { cty: "Paris" } });
    assert.equal(message, "arguments for 'refs' are invalid: /home/cty: unknown property 'home.cty' is not allowed; did you mean 'city'?");
    assert.deepEqual(errors[0]?.schema, { properties: ["city", "zip"] });
  });

  it("a recursive model, several levels down, and the schema fragment of a field under a $ref", async () => {
    const deep = await refusal("refs", { root: { name: "a", children: [{ name: "b", children: [{ nam: "c" }] }] } });
    assert.match(deep.message, /unknown property 'root\.children\[0\]\.children\[0\]\.nam' is not allowed; did you mean 'name'\?$/);
    const zip = await refusal("refs", { home: { zip: "7501" } });
    assert.deepEqual(zip.errors[0]?.schema, { type: "string", pattern: "^\\d{5}$" });
  });
});

describe("a pattern plain JS regex syntax takes but the u flag refuses", () => {
  it("is still checked (the tool was left unvalidated), and a matching value passes", async () => {
    const { message } = await refusal("month", { month: "2024-1" });
    assert.equal(message, `arguments for 'month' are invalid: /month: 'month' must match pattern "^\\d{4}\\-\\d{2}$"`);
    const ok = await call("month", { month: "2024-01" });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    assert.doesNotMatch(conn.stderr(), /month: the schema cannot be compiled/);
  });
});

describe("patterns are compiled one by one", () => {
  it("one the u flag refuses does not change what the tool's other patterns mean", async () => {
    const ok = await call("mixed_patterns", { month: "2024-05", name: "ÄBC", emoji: "😀" });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    const { message } = await refusal("mixed_patterns", { month: "2024-05", name: "p{Lu}p{Lu}" });
    assert.match(message, /\/name: 'name' must match pattern "\^\\p\{Lu\}\+\$"/);
    const month = await refusal("mixed_patterns", { month: "2024-5" });
    assert.match(month.message, /\/month: 'month' must match pattern/);
  });

  it("one that backtracks without end answers at once, and still refuses what does not match", async () => {
    // Run by the backtracking engine alone, each of these took 15 s or more against 30 characters and a "!".
    for (const [field, char] of [["s", "a"], ["alt", "1"], ["same", "a"]] as const) {
      const started = Date.now();
      const { message } = await refusal("redos", { [field]: `${char.repeat(30)}!` });
      // A bound a loaded machine keeps: the linear-time engine answers in about a millisecond.
      assert.ok(Date.now() - started < 5_000, `${field} took ${Date.now() - started} ms`);
      assert.match(message, new RegExp(`/${field}: '${field}' must match pattern`));
      const ok = await call("redos", { [field]: char.repeat(30) });
      assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    }
    const { message } = await refusal("redos", { s: "aaa", n: 11 });
    assert.match(message, /\/n: 'n' must be <= 10/);
    assert.doesNotMatch(conn.stderr(), /redos: the schema/);
  });

  it("linear patterns real schemas carry are checked, and so are the tool's other checks", async () => {
    const good = {
      slug: "my-repo-2",
      dns: "api.example-1.internal",
      semver: "1.2.3-rc.1+build.5",
      domain: "sub.example.com",
      email: "first.last+tag@mail.example.org",
      ids: "1,22,333",
      path: "/usr/local/bin",
      size: 3,
    };
    const ok = await call("safe_patterns", good);
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    // Two calls: an error names at most five fields.
    const bad = await refusal("safe_patterns", { slug: "My Repo!!", dns: "-bad-", semver: "1.2", domain: "localhost", email: "a@b" });
    for (const field of ["slug", "dns", "semver", "domain", "email"]) assert.match(bad.message, new RegExp(`/${field}: '${field}' must match pattern`), bad.message);
    const more = await refusal("safe_patterns", { slug: "ok", ids: "1,,2", path: "usr", size: 99 });
    for (const field of ["ids", "path"]) assert.match(more.message, new RegExp(`/${field}: '${field}' must match pattern`), more.message);
    assert.match(more.message, /\/size: 'size' must be <= 10/);
    const missing = await refusal("safe_patterns", {});
    assert.match(missing.message, /missing required property 'slug'/);
    assert.doesNotMatch(conn.stderr(), /safe_patterns: the schema/);
  });

  it("one that needs the u flag and can take exponential time is skipped alone: the tool's other checks stay, and the log says it once", async () => {
    const started = Date.now();
    const ok = await call("unicode_redos", { word: `${"Ä".repeat(40)}!`, n: 1 });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    const { message } = await refusal("unicode_redos", { word: "x", n: 11 });
    assert.match(message, /\/n: 'n' must be <= 10/);
    const { message: missing } = await refusal("unicode_redos", { word: "x" });
    assert.match(missing, /missing required property 'n'/);
    const said = conn.stderr().match(/unicode_redos: the schema's pattern "\^\(\\\\p\{L\}\+\)\+\$" is not checked \([^\n]*exponential time/g) ?? [];
    assert.equal(said.length, 1, conn.stderr());
    assert.doesNotMatch(conn.stderr(), /unicode_redos: the schema cannot be compiled/);
  });

  it("a bounded repeat the linear-time engine will not take: one that can take exponential time is skipped alone, at once; the others are checked", async () => {
    // Run by the backtracking engine, "^(\w|\d){1,100}$" took 58 s against 30 characters and a "!".
    for (const [field, char] of [["alt", "1"], ["nested", "a"]] as const) {
      const started = Date.now();
      const ok = await call("bounded_redos", { [field]: `${char.repeat(30)}!` });
      assert.equal(ok.isError, false, JSON.stringify(ok.payload));
      // A bound a loaded machine keeps: the pattern is not run.
      assert.ok(Date.now() - started < 5_000, `${field} took ${Date.now() - started} ms`);
    }
    for (const pattern of ["^(\\\\w|\\\\d){1,100}$", "^(a{1,20}){1,20}$"]) {
      const said = conn.stderr().split(`bounded_redos: the schema's pattern "${pattern}" is not checked (`).length - 1;
      assert.equal(said, 1, conn.stderr());
    }
    const good = await call("bounded_redos", { name: "abc", word: "abc_1", pair: "abab", n: 3 });
    assert.equal(good.isError, false, JSON.stringify(good.payload));
    const { message } = await refusal("bounded_redos", { name: "ab1", word: "a!", pair: "aba", n: 11 });
    for (const field of ["name", "word", "pair"]) assert.match(message, new RegExp(`/${field}: '${field}' must match pattern`), message);
    assert.match(message, /\/n: 'n' must be <= 10/);
    assert.doesNotMatch(conn.stderr(), /the schema's pattern "\^\[a-z\]|"\^\\\\w\{3|"\^\(ab\)/);
  });

  it("a class that takes U+E000 (the placeholder for a character beyond the BMP) refuses an emoji, as under the u flag", async () => {
    for (const field of ["pua", "bmp"]) {
      const { message } = await refusal("private_use", { [field]: "😀" });
      assert.match(message, new RegExp(`/${field}: '${field}' must match pattern`), message);
    }
    const ok = await call("private_use", { pua: "\uE001", bmp: "Ärger \uFFFD" });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
  });

  it("a pattern compiled without the u flag keeps its meaning for characters beyond the BMP", async () => {
    const ok = await call("mixed_patterns", { emoji: "😀" });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    const { message } = await refusal("mixed_patterns", { emoji: "😀😀" });
    assert.match(message, /\/emoji: 'emoji' must match pattern/);
  });
});

describe("a schema that refers to itself without end", () => {
  it("goes on unchecked, logged, not an UPSTREAM_ERROR 'Maximum call stack size exceeded'", async () => {
    const { payload, isError } = await call("selfref", { self: 5 });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.doesNotMatch(JSON.stringify(payload), /call stack/);
    // The warning is written when the schema is compiled; its stderr line may arrive after the answer.
    await eventually(() => /selfref: [^\n]*refers to itself without end/.test(conn.stderr()), "the warning about selfref's schema on stderr");
  });
});

describe("a union of const values at the field itself", () => {
  it("says the values as one list, not one sentence per branch and the union's own", async () => {
    const { message, errors } = await refusal("const_union", { mode: "medium" });
    assert.equal(message, `arguments for 'const_union' are invalid: /mode: must be one of "fast" or "slow"`);
    assert.equal(errors.length, 1);
    assert.equal((await call("const_union", { mode: "slow" })).isError, false);
  });
});

describe("declared parameters under a top-level $ref", () => {
  it("a `params` parameter sent next to toolName is that parameter, not an arguments wrapper", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_lax_call", { toolName: "rpc_ref", method: "x", params: { a: 1 } });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, { method: "x", params: { a: 1 } });
  });

  it("`arguments: {params: …}` is not unwrapped when params is declared under the $ref", async () => {
    const { message } = await refusal("rpc_ref", { params: { method: "x" } });
    assert.match(message, /missing required property 'method'/);
    const { payload, isError } = await call("rpc_ref", { method: "x", params: { b: 2 } });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, { method: "x", params: { b: 2 } });
  });
});
