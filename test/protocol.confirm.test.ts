import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/client";
import { callJson, connectStdioV1, writePlugin } from "./helpers.js";
import { connectHttpPreferringSse, httpForSuite } from "./http-helpers.js";
import { callV2, connectHttpV2, connectStdioV2, MODERN, modernToolCalls, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * The human confirms writes: a client that declares form elicitation is asked before a mutating
 * call runs (plugin, tool, arguments), in both eras, over stdio and HTTP; accept writes exactly
 * once, decline writes nothing and says so; a client without elicitation keeps the confirm flag.
 * The write is real: a v2 downstream server appends a line to a file per write_row.
 */

type Decision = { action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean | string[]> };
type Call = (args: Record<string, unknown>) => Promise<{ payload: Record<string, unknown> & { error?: { code: string; message: string; hint: string; details?: Record<string, unknown> } }; isError: boolean }>;

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-confirm-"));
const writes = path.join(dir, "writes.log");
const pluginsDir = path.join(dir, "plugins");

// A plugin `db` over the dual-era v2 fixture, with a skill that writes two rows.
writePlugin(
  path.join(pluginsDir, "agent-tools-plugin-db"),
  {
    name: "db",
    prefix: "db",
    description: "A table store for the confirmation tests.",
    adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: writes }, timeoutMs: 30_000 },
  },
  {
    "skills/two-rows.mjs": `export const meta = { description: "Write two rows." };
export async function run(adapter, args) {
  await adapter.call("echo", { text: "read first" });
  await adapter.call("write_row", { table: args.table ?? "t", value: "one" });
  await adapter.call("write_row", { table: args.table ?? "t", value: "two" });
  return { wrote: 2 };
}
`,
  },
);

const written = (): string[] => {
  try {
    return readFileSync(writes, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

/** A credential of the server's environment (its name says so): never shown in clear, not even in the question to the user. */
const SECRET = "sekr3tTok3nValue12345";
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, DB_API_TOKEN: SECRET };

/**
 * Accepts that are not a yes: the form's `confirm` is anything but the boolean true. Each writes
 * nothing and answers CONFIRM_DECLINED saying the answer was not a yes. The last one's arguments
 * carry the server's secret: the question shows it masked.
 */
const NOT_A_YES: Decision[] = [
  { action: "accept", content: { confirm: "false" } },
  { action: "accept", content: { confirm: 0 } },
  { action: "accept", content: {} },
  { action: "accept" },
  { action: "accept", content: { confirm: "yes please" } },
  { action: "accept", content: { confirm: "true" } },
];

async function notAYesWritesNothing(call: Call, asked: string[], answer: { next: Decision }, label: string): Promise<void> {
  const before = written().length;
  for (const [i, decision] of NOT_A_YES.entries()) {
    answer.next = decision;
    const value = i === NOT_A_YES.length - 1 ? SECRET : `${label}-not-yes-${i}`;
    const answered = await call({ toolName: "write_row", arguments: { table: "prod_db", value } });
    const said = JSON.stringify(decision);
    assert.equal(answered.isError, true, `${label} ${said}: ${JSON.stringify(answered.payload)}`);
    assert.equal(answered.payload.error?.code, "CONFIRM_DECLINED", `${label} ${said}: ${JSON.stringify(answered.payload)}`);
    assert.match(answered.payload.error?.message ?? "", /answer when asked to confirm 'write_row' of plugin 'db' was not a yes .*nothing was changed/, `${label} ${said}`);
    assert.equal(answered.payload.error?.details?.decision, "unconfirmed");
    assert.equal(written().length, before, `${label} ${said}: an accept that is not a yes wrote nothing`);
  }
  assert.doesNotMatch(asked.at(-1) ?? "", new RegExp(SECRET), `${label}: the secret is not in the question`);
  assert.match(asked.at(-1) ?? "", /"value": "\[redacted\]"/, `${label}: ${asked.at(-1)}`);
}

/** A v2 client that answers elicitation with whatever `next` says, and records what it was asked. */
function askingV2(asked: string[], next: () => Decision, pin = true): Client {
  const client = v2Client(pin ? "pin" : "legacy", { elicitation: { form: {} } });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return next();
  });
  return client;
}

/** The v1 SDK client declaring elicitation: the same recording and answering as askingV2. */
function askingV1(name: string, asked: string[], next: () => Decision): V1Client {
  const client = new V1Client({ name, version: "0.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return next();
  });
  return client;
}

/** A v1 SDK client declaring elicitation whose question handler is `handler` (one that throws, one that never answers). */
function failingV1(name: string, handler: () => Promise<never>): V1Client {
  const client = new V1Client({ name, version: "0.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, handler);
  return client;
}

/** A write whose question failed: the facade's CONFIRM_FAILED (message, hint, details), in good time, and nothing written. */
async function questionFails(call: Call, message: RegExp, label: string): Promise<void> {
  const before = written().length;
  const started = Date.now();
  const failed = await call({ toolName: "write_row", arguments: { table: "prod_db", value: `${label}-failed` } });
  assert.equal(failed.isError, true, label);
  assert.equal(failed.payload.ok, false, label);
  assert.equal(failed.payload.error?.code, "CONFIRM_FAILED", `${label}: ${JSON.stringify(failed.payload)}`);
  assert.match(failed.payload.error?.message ?? "", message, label);
  assert.match(failed.payload.error?.hint ?? "", /nothing was changed.*call again/, label);
  assert.ok(Date.now() - started < 30_000, `${label}: answered within the question's deadline, not the SDK's 10 minutes`);
  assert.equal(written().length, before, `${label}: nothing written`);
}

/** The three checks every transport and era gets: accept writes once, decline writes nothing, the question names what it asks. */
async function acceptThenDecline(call: Call, asked: string[], answer: { next: Decision }, label: string): Promise<void> {
  const before = written().length;
  answer.next = { action: "accept", content: { confirm: true } };
  const accepted = await call({ toolName: "write_row", arguments: { table: "prod_db", value: `${label}-yes` } });
  assert.equal(accepted.isError, false, `${label}: ${JSON.stringify(accepted.payload)}`);
  assert.deepEqual(written().slice(before), [JSON.stringify({ table: "prod_db", value: `${label}-yes` })], `${label}: written exactly once`);
  assert.match(asked.at(-1) ?? "", /plugin 'db'.*'write_row'[\s\S]*prod_db/, `${label}: the question names plugin, tool and arguments`);

  answer.next = { action: "decline" };
  const declined = await call({ toolName: "write_row", arguments: { table: "prod_db", value: `${label}-no` }, confirm: true });
  assert.equal(declined.isError, true);
  assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED", `${label}: ${JSON.stringify(declined.payload)}`);
  assert.match(declined.payload.error?.message ?? "", /the agent's client declined 'write_row'.*AGENT_TOOLS_CONFIRM=flag/);
  assert.match(declined.payload.error?.hint ?? "", /Do not retry/);
  assert.equal(written().length, before + 1, `${label}: nothing written on decline, even with the model's confirm: true`);
}

describe("stdio", () => {
  it("modern (pinned v2 client with form elicitation): accept writes once, decline nothing; a skill's two writes ask once and write once each", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "accept" } };
    const { client } = await connectStdioV2(askingV2(asked, () => answer.next), env);
    try {
      await acceptThenDecline((args) => callV2(client, "agent_tools_db_call", args), asked, answer, "stdio-modern");
      await notAYesWritesNothing((args) => callV2(client, "agent_tools_db_call", args), asked, answer, "stdio-modern");
      answer.next = { action: "accept", content: { confirm: true } };
      const before = written().length;
      const askedBefore = asked.length;
      const skill = await callV2(client, "agent_tools_db_run_skill", { skill: "two-rows", arguments: { table: "s" } });
      assert.equal(skill.isError, false, JSON.stringify(skill.payload));
      assert.equal(written().length, before + 2, "each row written once");
      assert.equal(asked.length - askedBefore, 1, "one question for the run, covering both writes");
      assert.match(asked.at(-1) ?? "", /run skill 'two-rows'[\s\S]*"table": "s"/);
      answer.next = { action: "decline" };
      const declined = await callV2(client, "agent_tools_db_run_skill", { skill: "two-rows", arguments: { table: "s2" } });
      assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED");
      assert.match(declined.payload.error?.message ?? "", /declined skill 'two-rows'/);
      assert.equal(written().length, before + 2, "a declined skill wrote nothing");
    } finally {
      await client.close();
    }
  });

  it("the question names every argument: a long value first does not push the table out of it", async () => {
    // A model steered by text it read puts a long harmless value first and the table after it:
    // the question cut the arguments' JSON at 400 characters, and the user read only the value.
    const asked: string[] = [];
    const { client } = await connectStdioV2(askingV2(asked, () => ({ action: "decline" })), env);
    try {
      const value = "Routine maintenance: refresh the cached statistics of the staging sandbox table; no customer data is touched. ".repeat(6);
      const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`note${i}`, value]));
      for (const args of [{ value, table: "production_customers" }, { ...many, value, table: "production_customers" }]) {
        const before = written().length;
        const declined = await callV2(client, "agent_tools_db_call", { toolName: "write_row", arguments: args });
        assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED", JSON.stringify(declined.payload));
        assert.equal(written().length, before);
        const question = asked.at(-1) ?? "";
        // The short value first, then each long one cut on its own, saying how much is left out.
        assert.match(question, /^Allow plugin 'db' to run 'write_row'\? It changes data\.\nArguments:\n {2}"table": "production_customers"\n {2}"(value|note0)": "Routine maintenance: [^\n]*"… \(\d+ more characters not shown\)(\n|$)/, question);
        assert.ok(question.length < 4000, `the question stays bounded: ${question.length} characters`);
        // Every key is named, the ones past the bound without their values.
        for (const key of Object.keys(args)) assert.ok(question.includes(`"${key}"`), `${key} is named`);
      }
      assert.match(asked.at(-1) ?? "", /\(\d+ more keys, values not shown: "note\d+", /);
    } finally {
      await client.close();
    }
  });

  it("legacy (v1 SDK client declaring elicitation): the SDK's shim asks through elicitation/create", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "accept" } };
    const client = askingV1("legacy-asker", asked, () => answer.next);
    await connectStdioV1(client, env);
    try {
      await acceptThenDecline((args) => callJson(client, "agent_tools_db_call", args), asked, answer, "stdio-legacy");
      await notAYesWritesNothing((args) => callJson(client, "agent_tools_db_call", args), asked, answer, "stdio-legacy");
    } finally {
      await client.close();
    }
  });

  /** Through agent_tools_exec: decline writes nothing despite the line's --confirm, accept writes once without it; the line's other commands run once. */
  async function execAsks(exec: (command: string) => Promise<unknown>, asked: string[], answer: { next: Decision }, label: string): Promise<void> {
    const before = written().length;
    answer.next = { action: "decline" };
    const declined = await exec(`db call write_row --table prod_db --value ${label}-no --confirm`);
    assert.equal(written().length, before, `${label}: the model's --confirm wrote without the user: ${JSON.stringify(declined)}`);
    assert.match(JSON.stringify(declined), /CONFIRM_DECLINED/);
    assert.match(asked.at(-1) ?? "", /plugin 'db'.*'write_row'[\s\S]*prod_db/, `${label}: the user was asked, naming plugin, tool and arguments`);
    answer.next = { action: "accept", content: { confirm: "false" } };
    const notYes = await exec(`db call write_row --table prod_db --value ${label}-not-yes`);
    assert.match(JSON.stringify(notYes), /CONFIRM_DECLINED.*was not a yes/, `${label}: ${JSON.stringify(notYes)}`);
    assert.equal(written().length, before, `${label}: an accept whose confirm is "false" wrote nothing`);
    answer.next = { action: "accept", content: { confirm: true } };
    const accepted = await exec(`echo one >> /tmp/runs; db call write_row --table prod_db --value ${label}-yes; echo two >> /tmp/runs; cat /tmp/runs`);
    assert.doesNotMatch(JSON.stringify(accepted), /CONFIRM_/, JSON.stringify(accepted));
    const stdout = (JSON.parse((accepted as { content: { text: string }[] }).content[0]?.text ?? "{}") as { stdout?: string }).stdout ?? "";
    assert.ok(stdout.endsWith("one\ntwo\n"), `${label}: the line ran once: ${stdout}`);
    assert.deepEqual(written().slice(before), [JSON.stringify({ table: "prod_db", value: `${label}-yes` })], `${label}: accepted: written once, without --confirm`);
  }

  it("agent_tools_exec, modern: a plugin command's --confirm is not the user's word (asked through input_required, the line goes on)", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "decline" } };
    const { client } = await connectStdioV2(askingV2(asked, () => answer.next), env);
    try {
      await execAsks((command) => client.callTool({ name: "agent_tools_exec", arguments: { command } }), asked, answer, "exec-modern");
    } finally {
      await client.close();
    }
  });

  it("agent_tools_exec, legacy: the same through elicitation/create", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "decline" } };
    const client = askingV1("exec-asker", asked, () => answer.next);
    await connectStdioV1(client, env);
    try {
      await execAsks((command) => client.callTool({ name: "agent_tools_exec", arguments: { command } }), asked, answer, "exec-legacy");
    } finally {
      await client.close();
    }
  });

  it("agent_tools_exec, legacy: a line cancelled while its question is open withdraws the question (notifications/cancelled for the elicitation request)", { timeout: 60_000 }, async () => {
    // The legacy era, where the question is a request of the server's (elicitation/create) that
    // can be withdrawn (a modern client is asked through input_required in the call's own answer).
    // The first question is declined at once: the server's first request has id 0, and the v1 SDK
    // client (1.32) ignores notifications/cancelled whose requestId is falsy (`if
    // (!notification.params.requestId) return`), so a withdrawn id 0 never aborts its handler: that
    // is why this cancel was not seen before. The second question, id 1, is left open.
    let questions = 0;
    let askedAt = (): void => undefined;
    let withdrawnWith = (_id: unknown): void => undefined;
    const asked = new Promise<void>((resolve) => (askedAt = resolve));
    const withdrawn = new Promise<unknown>((resolve) => (withdrawnWith = resolve));
    const client = new V1Client({ name: "pending-ui", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      if (questions++ === 0) return Promise.resolve({ action: "decline" as const });
      // The SDK aborts this signal when the server sends notifications/cancelled for the request.
      extra.signal.addEventListener("abort", () => withdrawnWith(extra.requestId), { once: true });
      askedAt();
      return new Promise<never>(() => undefined); // the user never answers
    });
    await connectStdioV1(client, env);
    try {
      const before = written().length;
      const declined = await callJson(client, "agent_tools_exec", { command: "db call write_row --table prod_db --value declined" });
      assert.match(JSON.stringify(declined.payload), /CONFIRM_DECLINED/, "the first question was asked and declined");
      const cancel = new AbortController();
      const line = client.callTool({ name: "agent_tools_exec", arguments: { command: "db call write_row --table prod_db --value withdrawn" } }, undefined, { signal: cancel.signal });
      await asked;
      cancel.abort();
      await assert.rejects(line, /abort/i, "the client's own call ends when it cancels");
      const withdrawnId = await Promise.race([withdrawn, new Promise((resolve) => setTimeout(() => resolve("never withdrawn"), 20_000))]);
      assert.equal(withdrawnId, 1, "the server withdrew the open question, its second request");
      // The session's queue moved on: the next line runs at once, and the write was never made.
      const next = await callJson(client, "agent_tools_exec", { command: "echo next" });
      assert.equal((next.payload as { stdout?: string }).stdout, "next\n");
      assert.equal(written().length, before, "the withdrawn write was not made");
    } finally {
      await client.close();
    }
  });

  it("legacy: a client that fails the question, or never answers it, gets CONFIRM_FAILED in the facade's shape; nothing written", async () => {
    const crashing = failingV1("crashing-ui", async () => {
      throw new Error("client ui crashed");
    });
    await connectStdioV1(crashing, env);
    const silent = failingV1("silent-ui", () => new Promise(() => undefined));
    await connectStdioV1(silent, { ...env, AGENT_TOOLS_CONFIRM_TIMEOUT_MS: "1500" });
    try {
      await questionFails((args) => callJson(crashing, "agent_tools_db_call", args), /the client failed to ask the user to confirm 'write_row' of plugin 'db': .*client ui crashed; nothing was changed/, "stdio crash");
      const exec = await crashing.callTool({ name: "agent_tools_exec", arguments: { command: "db call write_row --table t --value exec-crash" } });
      assert.match(JSON.stringify(exec), /CONFIRM_FAILED.*client ui crashed/, JSON.stringify(exec));
      await questionFails((args) => callJson(silent, "agent_tools_db_call", args), /nobody answered the question asking the user to confirm 'write_row' of plugin 'db' within 1.5 s \(AGENT_TOOLS_CONFIRM_TIMEOUT_MS\); nothing was changed/, "stdio silent");
    } finally {
      await Promise.all([crashing.close(), silent.close()]);
    }
  });

  it("exec: time the user spends answering a write's question does not count against the line's deadline", async () => {
    // The line's deadline is 3 s; the user takes 6 s to accept.
    const slow = new V1Client({ name: "slow-ui", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    slow.setRequestHandler(ElicitRequestSchema, async () => {
      await new Promise((resolve) => setTimeout(resolve, 6000));
      return { action: "accept", content: { confirm: true } };
    });
    await connectStdioV1(slow, { ...env, AGENT_TOOLS_EXEC_TIMEOUT_MS: "3000" });
    try {
      const before = written().length;
      // The downstream starts on first use: that start is not what this test times.
      await slow.callTool({ name: "agent_tools_exec", arguments: { command: "db call echo --text warm" } });
      const done = await slow.callTool({ name: "agent_tools_exec", arguments: { command: "db call write_row --table t --value slow-yes; echo after" } });
      const answer = JSON.parse((done as { content: { text: string }[] }).content[0]?.text ?? "{}") as { exitCode?: number; stdout?: string; stderr?: string };
      assert.equal(answer.exitCode, 0, JSON.stringify(answer));
      assert.match(answer.stdout ?? "", /after\n$/);
      assert.deepEqual(written().slice(before), [JSON.stringify({ table: "t", value: "slow-yes" })], "the accepted write was made once");
    } finally {
      await slow.close();
    }
  });

  it("a confirm that is not the JSON boolean true is not honoured, the answer names it, and each value sent is its own attempt for the loop breaker", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), env);
    try {
      const before = written().length;
      for (const [confirm, named] of [
        ["true", /'confirm' was the string "true"; it must be the JSON boolean true/],
        ["yes", /'confirm' was the string "yes"; it must be the JSON boolean true/],
        [1, /'confirm' was the number 1; it must be the JSON boolean true/],
      ] as const) {
        const refused = await callV2(client, "agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "typed" }, confirm });
        assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED", `${JSON.stringify(confirm)}: ${JSON.stringify(refused.payload)}`);
        assert.match(refused.payload.error?.message ?? "", named);
      }
      assert.equal(written().length, before, "no confirm but the boolean true wrote anything");
    } finally {
      await client.close();
    }
  });

  it("a client without elicitation gets today's confirm flow", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), env);
    try {
      const refused = await callV2(client, "agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "flag" } });
      assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
      const before = written().length;
      const done = await callV2(client, "agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "flag" }, confirm: true });
      assert.equal(done.isError, false);
      assert.equal(written().length, before + 1);
    } finally {
      await client.close();
    }
  });

  it("the wording follows the client: one that will be asked is not told to add confirm: true; one that cannot ask is", async () => {
    const wording = async (client: Client): Promise<{ description: string; discover: string; protocol: string }> => {
      const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
      const discover = await callV2(client, "agent_tools_db_discover", { query: "write a row" });
      const help = await callV2(client, "agent_tools_help", {});
      return { description: tools.find((t) => t.name === "agent_tools_db_call")?.description ?? "", discover: String(discover.payload.confirm), protocol: JSON.stringify(help.payload.protocol) };
    };
    const asking = await connectStdioV2(askingV2([], () => ({ action: "decline" })), env);
    const plain = await connectStdioV2(v2Client("pin"), env);
    const flagged = await connectStdioV2(askingV2([], () => ({ action: "decline" })), { ...env, AGENT_TOOLS_CONFIRM: "flag" });
    try {
      const asked = await wording(asking.client);
      assert.match(asked.description, /Your user is asked to confirm changes/);
      assert.match(asked.discover, /your user is asked to confirm each change/);
      assert.match(asked.protocol, /confirmed by your user/);
      for (const said of Object.values(asked)) assert.doesNotMatch(said, /need confirm: true|add confirm: true/);
      const flag = await wording(plain.client);
      assert.match(flag.description, /Changes need confirm: true/);
      assert.match(flag.discover, /add confirm: true \(top level\) only if the user asked/);
      assert.match(flag.protocol, /also need confirm: true/);
      // Policy flag: the client could ask, but the model's flag decides, so the answers say so.
      const byFlag = await wording(flagged.client);
      assert.match(byFlag.description, /Changes need confirm: true/);
      assert.match(byFlag.discover, /add confirm: true/);
    } finally {
      await Promise.all([asking.client.close(), plain.client.close(), flagged.client.close()]);
    }
  });

  it("policy flag (AGENT_TOOLS_CONFIRM=flag): an eliciting client is not asked; the flag decides", async () => {
    const asked: string[] = [];
    const { client } = await connectStdioV2(askingV2(asked, () => ({ action: "accept", content: { confirm: true } })), { ...env, AGENT_TOOLS_CONFIRM: "flag" });
    try {
      const refused = await callV2(client, "agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "policy" } });
      assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
      assert.equal(asked.length, 0);
    } finally {
      await client.close();
    }
  });
});

describe("HTTP", () => {
  const http = httpForSuite(env);

  it("modern (pinned v2 client with form elicitation): accept writes once, decline nothing", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "accept" } };
    const client = await connectHttpV2(askingV2(asked, () => answer.next), http.url);
    try {
      await acceptThenDecline((args) => callV2(client, "agent_tools_db_call", args), asked, answer, "http-modern");
      await notAYesWritesNothing((args) => callV2(client, "agent_tools_db_call", args), asked, answer, "http-modern");
    } finally {
      await client.close();
    }
  });

  it("legacy session answering over SSE (v1 client declaring elicitation): asked through the shim", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: { action: "accept" } };
    const client = askingV1("legacy-http-asker", asked, () => answer.next);
    await connectHttpPreferringSse(client, http.url);
    try {
      await acceptThenDecline((args) => callJson(client, "agent_tools_db_call", args), asked, answer, "http-legacy");
      await notAYesWritesNothing((args) => callJson(client, "agent_tools_db_call", args), asked, answer, "http-legacy");
    } finally {
      await client.close();
    }
  });

  describe("a question that fails (confirm questions wait 1.5 s here)", () => {
    const short = httpForSuite({ ...env, AGENT_TOOLS_CONFIRM_TIMEOUT_MS: "1500" });

    it("legacy session over SSE: a client whose question handler throws, and one that never answers, get CONFIRM_FAILED; nothing written", async () => {
      const crashing = failingV1("crashing-ui", async () => {
        throw new Error("client ui crashed");
      });
      const silent = failingV1("silent-ui", () => new Promise(() => undefined));
      await connectHttpPreferringSse(crashing, short.url);
      await connectHttpPreferringSse(silent, short.url);
      try {
        await questionFails((args) => callJson(crashing, "agent_tools_db_call", args), /the client failed to ask the user to confirm 'write_row' of plugin 'db': .*client ui crashed; nothing was changed/, "http crash");
        await questionFails((args) => callJson(silent, "agent_tools_db_call", args), /nobody answered .*within 1.5 s/, "http silent");
        // The session is not left waiting: the same client's next call is answered.
        const read = await callJson(silent, "agent_tools_db_call", { toolName: "echo", arguments: { text: "still here" } });
        assert.equal(read.isError, false, JSON.stringify(read.payload));
      } finally {
        await Promise.all([crashing.close(), silent.close()]);
      }
    });
  });

  it("modern: a retry carrying the user's answer is their word, not a loop: an accept after two declines writes; the model's own third bare call is stopped", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "loop-test", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    type Answer = { result?: { requestState?: string; content?: { type: string; text: string }[] }; error?: { code: number; message: string } };
    const call = modernToolCalls<Answer>(() => http.url, envelope);
    const codeOf = (answer: Answer): string | undefined => (JSON.parse(answer.result?.content?.[0]?.text ?? "{}") as { error?: { code: string } }).error?.code;
    const answered = (action: string, requestState: string) => ({ inputResponses: { confirm: { action, ...(action === "accept" ? { content: { confirm: true } } : {}) } }, requestState });

    const write = { toolName: "write_row", arguments: { table: "loop", value: "after-two-declines" } };
    const asked = await call("agent_tools_db_call", write);
    const state = asked.result?.requestState;
    assert.ok(state, JSON.stringify(asked));
    assert.equal(codeOf(await call("agent_tools_db_call", write, answered("decline", state))), "CONFIRM_DECLINED");
    assert.equal(codeOf(await call("agent_tools_db_call", write, answered("cancel", state))), "CONFIRM_DECLINED");
    const accepted = await call("agent_tools_db_call", write, answered("accept", state));
    assert.equal(codeOf(accepted), undefined, JSON.stringify(accepted));
    assert.equal(written().filter((line) => line.includes("after-two-declines")).length, 1, "the user's accept wrote once");

    // The model repeating the call after the user declined it twice is still a loop.
    const again = { toolName: "write_row", arguments: { table: "loop", value: "model-repeats" } };
    for (let i = 0; i < 2; i++) {
      const round = await call("agent_tools_db_call", again);
      assert.ok(round.result?.requestState, JSON.stringify(round));
      assert.equal(codeOf(await call("agent_tools_db_call", again, answered("decline", round.result.requestState))), "CONFIRM_DECLINED");
    }
    assert.equal(codeOf(await call("agent_tools_db_call", again)), "LOOP_DETECTED");
    assert.equal(written().filter((line) => line.includes("model-repeats")).length, 0);
  });

  it("modern: an answer to the confirmation that does not fit its form is refused (-32602 naming what is wrong and the answer expected), not asked again; the same requestState answered right writes once", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "shape-test", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    type Answer = { result?: { resultType?: string; requestState?: string; content?: { type: string; text: string }[] }; error?: { code: number; message: string } };
    const call = modernToolCalls<Answer>(() => http.url, envelope);
    const write = { toolName: "write_row", arguments: { table: "shape", value: "answered-right" } };
    const asked = await call("agent_tools_db_call", write);
    const requestState = asked.result?.requestState;
    assert.ok(requestState, JSON.stringify(asked));
    const accept = { action: "accept", content: { confirm: true } };
    const wrong: [Record<string, unknown> | undefined, RegExp][] = [
      // The wrapped shape some clients send: the SDK sets it aside; the answer names it.
      [{ confirm: { method: "elicitation/create", result: accept } }, /inputResponses\.confirm is not the answer itself: an entry wrapped as \{"method", "result"\}.*Send the bare answer there: \{"action": "accept", "content": \{"confirm": true\}\} to let the change run, or \{"action": "decline"\}/],
      [{}, /inputResponses has no answer \(an object\) under 'confirm'/],
      [{ wrongkey: accept }, /inputResponses has 'wrongkey', which this round did not ask; it asked 'confirm'/],
      [{ confirm: { action: "yes" } }, /inputResponses\.confirm answers an elicitation\/create question, so it must be \{"action": "accept", "content": \{"confirm": true\}\}.*; got action "yes"/],
      [undefined, /inputResponses must be an object with an answer under each key the question round asked \('confirm'\); got none/],
    ];
    for (const [inputResponses, said] of wrong) {
      const answer = await call("agent_tools_db_call", write, { requestState, ...(inputResponses ? { inputResponses } : {}) } as never);
      assert.equal(answer.error?.code, -32602, `${JSON.stringify(inputResponses)}: ${JSON.stringify(answer)}`);
      assert.match(answer.error?.message ?? "", said);
      assert.match(answer.error?.message ?? "", /Nothing was run; send the answer with the same requestState/);
    }
    assert.equal(written().filter((line) => line.includes("answered-right")).length, 0, "nothing written by a malformed answer");
    const accepted = await call("agent_tools_db_call", write, { requestState, inputResponses: { confirm: accept } });
    assert.equal(accepted.result?.resultType, "complete", JSON.stringify(accepted));
    assert.equal(written().filter((line) => line.includes("answered-right")).length, 1, "the right answer on the same requestState wrote once");
  });

  it("a legacy session answering in JSON cannot carry the question: the confirm flag decides", async () => {
    const asked: string[] = [];
    const client = askingV1("legacy-json", asked, () => ({ action: "accept", content: { confirm: true } }));
    await client.connect(new V1Http(new URL(http.url)));
    try {
      const refused = await callJson(client, "agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "json" } });
      assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
      assert.equal(asked.length, 0);
    } finally {
      await client.close();
    }
  });
});
