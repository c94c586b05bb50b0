import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { callJson, stdioForSuite, writePlugin, type Payload } from "./helpers.js";

/**
 * The skill gate over everything a skill can reach on a module adapter, against the built server
 * over stdio: frozen adapters and clients, private fields and getters, symbol-keyed methods,
 * reflection, a callable client with methods (axios/ky style), arrays of clients, and a run's
 * code that goes on after its answer. Every write lands in the adapter's log, read back with its
 * read-only `log` tool, so each test asserts what reached the "backend".
 */

const root = mkdtempSync(path.join(tmpdir(), "gate-reach-"));
after(() => rmSync(root, { recursive: true, force: true }));

const ADAPTER = `
const log = [];
class Priv { #secret = "s"; async erase() { log.push("priv.erase " + this.#secret); return "erased"; } get peek() { return this.#secret; } }
const http = Object.assign(async function http(url) { log.push("http " + url); return "called"; }, {
  get: async (url) => "got " + url,
  post: async (url) => { log.push("http.post " + url); return "posted"; },
});
const frozenRest = Object.freeze({ request: async (method) => { if (method !== "GET") log.push("frozenRest.request " + method); return "ok " + method; } });
const pages = { *[Symbol.iterator]() { yield "p1"; yield "p2"; } };
export default function createAdapter() {
  return {
    priv: new Priv(),
    http,
    frozenRest,
    pages,
    rows: [{ id: 2, name: "b" }, { id: 1, name: "a" }],
    clients: [{ del: async () => { log.push("clients[0].del"); return "deleted"; } }],
    async erase() { log.push("erase"); return "erased"; },
    [Symbol.for("gr.write")]: async () => { log.push("symbol write"); return "sym"; },
    async listTools() { return { tools: [{ name: "write_b", inputSchema: { type: "object" } }, { name: "log", inputSchema: { type: "object" } }] }; },
    async call(name, args) { if (name === "log") return { log }; log.push("call " + name + " " + JSON.stringify(args)); return { wrote: name }; },
    readsOnly(method, args) { return method === "http.get" || (method === "frozenRest.request" && args[0] === "GET"); },
  };
}
`;

/** A skill module whose run is `body`. */
const skill = (body: string): string => `export const meta = { description: "gate reach" };\nexport async function run(adapter, args, context) {\n${body}\n}\n`;

const SKILLS: Record<string, string> = {
  "priv-erase": "return await adapter.priv.erase();",
  "priv-peek": "return { peek: adapter.priv.peek, same: adapter.priv === adapter.priv && adapter.http === adapter.http, isPriv: adapter.priv instanceof Object.getPrototypeOf(adapter.priv).constructor };",
  "frozen-read": `return await adapter.frozenRest.request("GET");`,
  "frozen-write": `return await adapter.frozenRest.request("DELETE");`,
  "symbol-write": `return await adapter[Symbol.for("gr.write")]();`,
  iterate: "return [...adapter.pages];",
  "reflect-erase": `return await Object.getOwnPropertyDescriptor(adapter, "erase").value();`,
  "reflect-nested": `return await Object.getOwnPropertyDescriptor(adapter, "priv").value.erase();`,
  "reflect-keys": `return { keys: Object.keys(adapter).filter((k) => k !== "readsOnly").sort(), has: "erase" in adapter, proto: Object.getPrototypeOf(adapter.priv).constructor.name, httpKeys: Object.keys(adapter.http).sort() };`,
  "http-get": `return await adapter.http.get("/x");`,
  "http-call": `return await adapter.http("/x");`,
  "http-post": `return await adapter.http.post("/x");`,
  "array-read": "return { isArray: Array.isArray(adapter.rows), ids: adapter.rows.map((r) => r.id), rows: JSON.parse(JSON.stringify(adapter.rows)), same: adapter.rows[0] === adapter.rows[0] };",
  "array-del": "return await adapter.clients[0].del();",
  "late-write": `setTimeout(() => { adapter.call("write_b", { late: 1 }).then(() => context.log.info("LATE WRITE SENT"), (e) => context.log.info("LATE WRITE REFUSED: " + e.message)); }, 200); return { answered: true };`,
  "late-approve": `setTimeout(async () => { try { const r = await context.approveCall("write_b", { later: 1 }); await context.jobs.start(r, { kind: "late" }); context.log.info("LATE APPROVE SENT"); } catch (e) { context.log.info("LATE APPROVE REFUSED: " + e.message); } }, 200); return { answered: true };`,
  approve: `const r = await context.approveCall("write_b", { approved: 1 }); return { id: await context.jobs.start(r, { kind: "approved" }) };`,
};

const files: Record<string, string> = { "adapter.mjs": ADAPTER };
for (const [name, body] of Object.entries(SKILLS)) files[`skills/${name}.mjs`] = skill(body);
writePlugin(path.join(root, "plugins", "agent-tools-plugin-gr"), { name: "gr", prefix: "gr", adapter: "./adapter.mjs", readonlyTools: ["log"] }, files);
writePlugin(path.join(root, "plugins", "agent-tools-plugin-fz"), { name: "fz", prefix: "fz", adapter: "./adapter.mjs", readonlyTools: ["r"] }, {
  "adapter.mjs": `const log = []; export default function createAdapter() { return Object.freeze({ async listTools() { return { tools: [{ name: "r", inputSchema: { type: "object" } }] }; }, async call() { return { log }; }, async wipe() { log.push("wipe"); return "wiped"; } }); }\n`,
  "skills/read.mjs": skill(`return await adapter.call("r", {});`),
  "skills/wipe.mjs": skill("return await adapter.wipe();"),
});

describe("the skill gate reaches everything on the adapter", () => {
  const server = stdioForSuite(path.join(root, "plugins"));
  const run = async (name: string, confirm = false, prefix = "gr"): Promise<Payload> => (await callJson(server.client, `agent_tools_${prefix}_run_skill`, { skill: name, arguments: {}, ...(confirm ? { confirm: true } : {}) })).payload;
  const backendLog = async (): Promise<string[]> => ((await callJson(server.client, "agent_tools_gr_call", { toolName: "log", arguments: {} })).payload.result as { log: string[] }).log;
  /** A write the skill reaches: refused without confirm (named `step`, nothing sent), sent with it. */
  const gatedWrite = async (name: string, step: string, sent: string): Promise<void> => {
    const before = (await backendLog()).length;
    const refused = await run(name);
    assert.equal(refused.error?.code, "CONFIRM_REQUIRED", `${name} without confirm: ${JSON.stringify(refused)}`);
    assert.equal(refused.error?.details?.tool, step);
    assert.equal((await backendLog()).length, before, `${name}: nothing reached the backend without confirm`);
    const done = await run(name, true);
    assert.equal(done.ok, true, `${name} with confirm: ${JSON.stringify(done)}`);
    assert.deepEqual((await backendLog()).slice(before), [sent]);
  };

  it("a frozen adapter: its skills run, and its own write method is still gated", async () => {
    assert.deepEqual((await run("read", false, "fz")).result, { log: [] });
    const refused = await run("wipe", false, "fz");
    assert.equal(refused.error?.code, "CONFIRM_REQUIRED", JSON.stringify(refused));
    assert.equal(refused.error?.details?.tool, "wipe");
    assert.deepEqual((await run("read", false, "fz")).result, { log: [] }, "nothing was wiped");
    assert.equal((await run("wipe", true, "fz")).result, "wiped");
    assert.deepEqual((await run("read", false, "fz")).result, { log: ["wipe"] });
  });

  it("a frozen client the adapter holds: a call readsOnly declares runs, a write is gated", async () => {
    const read = await run("frozen-read");
    assert.equal(read.result, "ok GET", JSON.stringify(read));
    await gatedWrite("frozen-write", "frozenRest.request", "frozenRest.request DELETE");
  });

  it("a class with private fields: methods bound to the real object, getters read on it, the same view each time", async () => {
    assert.deepEqual((await run("priv-peek")).result, { peek: "s", same: true, isPriv: true });
    await gatedWrite("priv-erase", "priv.erase", "priv.erase s");
  });

  it("a symbol-keyed method is gated under its symbol; a well-known one (iteration) is not", async () => {
    await gatedWrite("symbol-write", "[Symbol(gr.write)]", "symbol write");
    assert.deepEqual((await run("iterate")).result, ["p1", "p2"]);
  });

  it("reflection sees the same gated view: a descriptor's value is the gated method", async () => {
    await gatedWrite("reflect-erase", "erase", "erase");
    await gatedWrite("reflect-nested", "priv.erase", "priv.erase s");
    assert.deepEqual((await run("reflect-keys")).result, {
      keys: ["call", "clients", "erase", "frozenRest", "http", "listTools", "pages", "priv", "rows"],
      has: true,
      proto: "Priv",
      httpKeys: ["get", "post"],
    });
  });

  it("a function client with methods stays callable (gated as itself) and its methods are reachable (gated by name)", async () => {
    const before = (await backendLog()).length;
    const got = await run("http-get");
    assert.equal(got.result, "got /x", `readsOnly declares http.get: ${JSON.stringify(got)}`);
    assert.equal((await backendLog()).length, before);
    await gatedWrite("http-call", "http", "http /x");
    await gatedWrite("http-post", "http.post", "http.post /x");
  });

  it("an array's elements are gated, and the array still works as one", async () => {
    assert.deepEqual((await run("array-read")).result, { isArray: true, ids: [2, 1], rows: [{ id: 2, name: "b" }, { id: 1, name: "a" }], same: true });
    await gatedWrite("array-del", "clients[0].del", "clients[0].del");
  });

  /** Wait (generously: the machine is loaded) until the server's log says `text`. */
  const logged = async (text: string): Promise<string> => {
    for (let waited = 0; waited < 15_000 && !server.stderr().includes(text); waited += 50) await new Promise((r) => setTimeout(r, 50));
    return server.stderr();
  };

  it("a run that answered has a closed gate: a later step is refused and logged, even confirmed", async () => {
    const before = (await backendLog()).length;
    assert.deepEqual((await run("late-write", true)).result, { answered: true });
    const stderr = await logged("LATE WRITE");
    assert.match(stderr, /LATE WRITE REFUSED: skill 'late-write' has already answered: its run is over, so its step 'write_b' was not sent/);
    assert.match(stderr, /gr:late-write asked for step 'write_b' after its run had answered; it was not sent/);
    assert.doesNotMatch(stderr, /LATE WRITE SENT/);
    assert.equal((await backendLog()).length, before, "nothing reached the backend after the answer");
  });

  it("approveCall after the run answered is refused; a call approved during the run still runs in its job", async () => {
    const before = (await backendLog()).length;
    assert.deepEqual((await run("late-approve", true)).result, { answered: true });
    const stderr = await logged("LATE APPROVE");
    assert.match(stderr, /LATE APPROVE REFUSED: skill 'late-approve' has already answered/);
    assert.equal((await backendLog()).length, before);

    const approved = await run("approve", true);
    assert.equal(approved.ok, true, JSON.stringify(approved));
    let log: string[] = [];
    for (let waited = 0; waited < 15_000 && !log.includes('call write_b {"approved":1}'); waited += 50) {
      log = await backendLog();
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(log.includes('call write_b {"approved":1}'), `the approved call ran after the run: ${JSON.stringify(log)}`);
  });
});
