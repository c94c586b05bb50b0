import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { HINTS } from "../src/errors.js";
import { UNLOADED_SKILL_HINT } from "../src/plugins/skills.js";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * Who a failing skill run blames, over stdio with the built server. A bug in the skill's own code
 * (a TypeError, a ReferenceError the engine raised there) is the plugin's fault: the hint says so,
 * not that the service failed. What its adapter passed on (a service's refusal, a network
 * failure, even a raw TypeError out of a module adapter) keeps its code and hint, and so does a
 * network failure of the skill's own fetch. A skill whose file did not load is said as that (why,
 * and the file), not as a name the plugin lacks.
 */

const ADAPTER = `
export default function createAdapter() {
  return {
    async listTools() {
      return { tools: ["get", "raw_typeerror", "raw_fetch"].map((name) => ({ name, description: "tool " + name, inputSchema: { type: "object" } })) };
    },
    async call(name) {
      if (name === "get") return { data: { id: 1 } };
      // The adapter's own failures, raw: a TypeError without a cause, and fetch's network failure.
      if (name === "raw_typeerror") throw new TypeError("Cannot read properties of undefined (reading 'rows')");
      if (name === "raw_fetch") return (await fetch(process.env.CF_DOWN_URL)).json();
      throw new Error("no tool " + name);
    },
  };
}
`;

const skill = (description: string, body: string, args?: unknown): string =>
  `export const meta = ${JSON.stringify({ description, ...(args === undefined ? {} : { args }) })};\nexport async function run(adapter, args) { ${body} }`;

/** A skill file whose import fails only when it runs (its meta comes from skills.meta.json). */
const NEEDS_MISSING = `import "./not-there.mjs";\nexport const meta = { description: "imports a module that is not there" };\nexport async function run() { return 1; }\n`;

const CF_SKILLS: Record<string, string> = {
  "skills/typeerror.mjs": skill("reads a property of undefined", `const n = await adapter.call("get", {}); return n.result.title.toUpperCase();`),
  "skills/referror.mjs": skill("calls a function that is not defined", `return missingHelper(args);`),
  "skills/bad-url.mjs": skill("parses its url argument", `return new URL(args.url).host;`, { url: "a URL" }),
  "skills/own-fetch.mjs": skill("fetches a closed port itself", `return (await fetch(process.env.CF_DOWN_URL)).status;`),
  "skills/adapter-typeerror.mjs": skill("passes on the adapter's TypeError", `return await adapter.call("raw_typeerror", {});`),
  "skills/adapter-fetch.mjs": skill("passes on the adapter's fetch failure", `return await adapter.call("raw_fetch", {});`),
  "skills/syntax.mjs": `export const meta = { description: "a syntax error" };\nexport async function run() { const x = { a: 1,, b: 2 }; return x; }\n`,
  "skills/needs-missing.mjs": NEEDS_MISSING,
  "skills/skills.meta.json": JSON.stringify({ skills: { "needs-missing.mjs": { sha256: createHash("sha256").update(NEEDS_MISSING).digest("hex"), meta: { description: "imports a module that is not there" } } } }),
};

/** A REST plugin with one tool, get_note, and a skill that runs it and answers its result. */
const restPlugin = (prefix: string, variable: string) => ({
  name: prefix,
  prefix,
  adapter: { kind: "rest", baseUrl: `\${${variable}}`, tools: [{ name: "get_note", method: "GET", path: "/notes/{id}", inputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } }] },
});
const GET_SKILL = { "skills/get.mjs": skill("reads a note", `return await adapter.call("get_note", { id: args.id });`, { id: "the note id" }) };

const CODE_FAULT = /The plugin's code has a bug/;

let dir: string;
let conn: Connected;
let service: Server;

const listening = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const closed = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

before(async () => {
  // A port nothing listens on: a server's, once it has closed.
  const gone = createServer();
  const downUrl = await listening(gone);
  await closed(gone);
  // The service of rsup: every note is missing.
  service = createServer((req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: `no note at ${req.url ?? ""}` }));
  });
  const upUrl = await listening(service);
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-skill-code-faults-"));
  writePlugin(path.join(dir, "agent-tools-plugin-cf"), { name: "cf", prefix: "cf", adapter: "./adapter.mjs", readonlyTools: ["get", "raw_typeerror", "raw_fetch"] }, { "adapter.mjs": ADAPTER, ...CF_SKILLS });
  writePlugin(path.join(dir, "agent-tools-plugin-rsdown"), restPlugin("rsdown", "RS_DOWN_URL"), GET_SKILL);
  writePlugin(path.join(dir, "agent-tools-plugin-rsup"), restPlugin("rsup", "RS_UP_URL"), GET_SKILL);
  conn = await connect(dir, { CF_DOWN_URL: downUrl, RS_DOWN_URL: downUrl, RS_UP_URL: upUrl });
});
after(async () => {
  await conn?.close();
  if (service) await closed(service);
  rmSync(dir, { recursive: true, force: true });
});

type ErrorPayload = { code: string; message: string; hint: string; details?: Record<string, unknown> };
const runSkill = async (prefix: string, name: string, args: Record<string, unknown> = {}): Promise<ErrorPayload> => {
  const { payload, isError } = await callJson(conn.client, `agent_tools_${prefix}_run_skill`, { skill: name, arguments: args });
  assert.equal(isError, true, `${prefix}:${name} fails`);
  return payload.error as ErrorPayload;
};
const callTool = async (prefix: string, toolName: string, args: Record<string, unknown>): Promise<ErrorPayload> => {
  const { payload, isError } = await callJson(conn.client, `agent_tools_${prefix}_call`, { toolName, arguments: args });
  assert.equal(isError, true, `${prefix}/${toolName} fails`);
  return payload.error as ErrorPayload;
};

describe("a bug in a skill's own code is blamed on the plugin, not on the service", () => {
  it("a TypeError its code raised: the engine's words, and the plugin-fault hint", async () => {
    const error = await runSkill("cf", "typeerror");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.equal(error.message, "skill 'cf:typeerror' failed: Cannot read properties of undefined (reading 'title')");
    assert.match(error.hint, CODE_FAULT);
    assert.match(error.hint, /plugin needs fixing by its author/);
    assert.doesNotMatch(error.hint, /The service behind this plugin failed|try a different tool|fix the arguments/);
  });

  it("a ReferenceError: the same", async () => {
    const error = await runSkill("cf", "referror");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /^skill 'cf:referror' failed: missingHelper is not defined$/);
    assert.match(error.hint, CODE_FAULT);
  });

  it("a TypeError of Node's API (it has a `code`: a bad value, often from the arguments) is not called a bug", async () => {
    const error = await runSkill("cf", "bad-url", { url: "not a url" });
    assert.match(error.message, /Invalid URL/);
    assert.equal(error.hint, HINTS.UPSTREAM_ERROR);
  });

  it("the skill's own fetch that cannot connect (TypeError 'fetch failed') is a network failure, not a bug", async () => {
    const error = await runSkill("cf", "own-fetch");
    assert.match(error.message, /^skill 'cf:own-fetch' failed: fetch failed/);
    assert.equal(error.hint, HINTS.UPSTREAM_ERROR);
  });
});

describe("what the adapter passed on keeps its code and hint", () => {
  it("a raw TypeError out of a module adapter's call is the adapter's failure, not the skill's bug", async () => {
    const error = await runSkill("cf", "adapter-typeerror");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /reading 'rows'/);
    assert.equal(error.hint, HINTS.UPSTREAM_ERROR);
  });

  it("a module adapter's own fetch failure (TypeError 'fetch failed') likewise", async () => {
    const error = await runSkill("cf", "adapter-fetch");
    assert.match(error.message, /fetch failed/);
    assert.equal(error.hint, HINTS.UPSTREAM_ERROR);
  });

  it("a REST plugin pointed at a closed port: the skill answers what the tool call answers", async () => {
    const direct = await callTool("rsdown", "get_note", { id: 3 });
    const error = await runSkill("rsdown", "get", { id: 3 });
    assert.match(direct.message, /could not reach .*ECONNREFUSED/);
    assert.equal(error.code, direct.code);
    assert.equal(error.hint, direct.hint);
    assert.deepEqual(error.details, direct.details);
    assert.match(error.message, /^skill 'rsdown:get' failed: .*could not reach .*ECONNREFUSED/);
    assert.doesNotMatch(error.hint, CODE_FAULT);
  });

  it("a service's refusal (HTTP 404) passed through: the same code, status and hint as the tool call's", async () => {
    const direct = await callTool("rsup", "get_note", { id: 3 });
    const error = await runSkill("rsup", "get", { id: 3 });
    assert.equal(direct.details?.status, 404);
    assert.equal(error.code, direct.code);
    assert.equal(error.hint, direct.hint);
    assert.equal(error.details?.status, 404);
    assert.match(error.message, /no note at \/notes\/3/);
    assert.doesNotMatch(error.hint, CODE_FAULT);
  });
});

describe("a skill whose file did not load says so, not that the plugin has no such skill", () => {
  it("failed at start (a syntax error): the load error, the file, and that its author must fix it; no other skills offered", async () => {
    const error = await runSkill("cf", "syntax");
    assert.equal(error.code, "UPSTREAM_ERROR");
    const file = path.join(dir, "agent-tools-plugin-cf", "skills", "syntax.mjs");
    assert.equal(error.message.startsWith(`skill 'syntax' of plugin 'cf' exists but failed to load when the server started (${file}): SyntaxError`), true, error.message);
    assert.deepEqual(error.details, { skill: "syntax", file });
    assert.equal(error.hint, UNLOADED_SKILL_HINT);
    assert.doesNotMatch(JSON.stringify(error), /did you mean|suggestions|"skills"/i);
  });

  it("named as a skill may be (the plugin's prefix, another case): the same answer", async () => {
    const error = await runSkill("cf", "cf_Syntax");
    assert.match(error.message, /^skill 'syntax' of plugin 'cf' exists but failed to load/);
    assert.equal(error.hint, UNLOADED_SKILL_HINT);
  });

  it("a name no skill file has is still UNKNOWN_SKILL", async () => {
    const error = await runSkill("cf", "no-such-skill");
    assert.equal(error.code, "UNKNOWN_SKILL");
    assert.match(error.message, /plugin 'cf' has no skill 'no-such-skill'/);
  });

  it("failed on its first run (listed from skills.meta.json, its import fails): the same hint", async () => {
    const error = await runSkill("cf", "needs-missing");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /^skill 'cf:needs-missing' failed: skill file .*needs-missing\.mjs could not be loaded: .*not-there\.mjs/);
    assert.equal(error.hint, UNLOADED_SKILL_HINT);
  });
});
