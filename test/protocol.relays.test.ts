import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createModernEntry, type ModernEntry } from "../src/transports/http/modern.js";
import { baseEnv, connectStdioV1, ROOT, writePlugin } from "./helpers.js";
import { connectHttpPreferringSse, httpForSuite } from "./http-helpers.js";
import { connectHttpV2, connectStdioV2, firstText, MODERN, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";
import { until } from "./wait.js";
import { progressFields, tapProgress } from "./wire-progress.js";

/**
 * Nothing dropped in between: what a downstream server sends during a call (5 progress steps, a
 * question for the user, a request for the client's model, a log message) reaches the agent's
 * client through the runtime as it does when the client talks to that server directly — for
 * both eras of the agent's client (2025: real requests mid-call; 2026-07-28: input_required
 * rounds of a call held open) and both eras of the downstream (a v2 server asking through
 * input_required, a v1 server asking with elicitation/create), over stdio and HTTP. A client
 * that cannot answer gets a refusal that says why.
 */

const LEGACY_ASKER = path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-relay-"));
const pluginsDir = path.join(dir, "plugins");
const downstreams = {
  // The v2 fixture (both eras): the runtime's client speaks 2026-07-28 to it, its questions come as input_required.
  dn: { command: process.execPath, args: [...V2_DOWNSTREAM_ARGS] },
  // A v1 server: the runtime's client falls back to 2025, its questions come as elicitation/create and sampling/createMessage.
  ln: { command: process.execPath, args: [LEGACY_ASKER] },
};
for (const [prefix, spawnAs] of Object.entries(downstreams)) {
  writePlugin(path.join(pluginsDir, `agent-tools-plugin-${prefix}`), { name: prefix, prefix, description: `Relay downstream '${prefix}'.`, adapter: { kind: "mcp", ...spawnAs, timeoutMs: 60_000 } });
}
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir };
const PREFIXES = Object.keys(downstreams) as (keyof typeof downstreams)[];

type Progress = { progress: number; total?: number; message?: string };
const textOf = (result: unknown): string => JSON.stringify((result as CallToolResult).structuredContent ?? (result as CallToolResult).content);
const callArgs = (prefix: string, toolName: string, args: Record<string, unknown>) => ({ name: `agent_tools_${prefix}_call`, arguments: { toolName, arguments: args } });

/** What the agent's clients answer: the user says "blue", the model summarises shortly. */
const QUESTIONS: string[] = [];
const elicitAnswer = (message: string) => {
  QUESTIONS.push(message);
  return { action: "accept" as const, content: { reply: "blue" } };
};
const sampleAnswer = { role: "assistant" as const, content: { type: "text" as const, text: "a short summary" }, model: "test-model" };

function legacyClient(capabilities: Record<string, unknown> = { elicitation: {}, sampling: {} }): V1Client {
  const client = new V1Client({ name: "relay-legacy", version: "0" }, { capabilities });
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, async (request) => elicitAnswer(request.params.message));
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, async () => sampleAnswer);
  return client;
}

function modernClient(): V2Client {
  const client = v2Client("pin", { elicitation: { form: {} }, sampling: {} });
  client.setRequestHandler("elicitation/create", async (request) => elicitAnswer((request.params as { message: string }).message));
  client.setRequestHandler("sampling/createMessage", async () => sampleAnswer);
  return client;
}

type AnyClient = {
  callTool(params: { name: string; arguments: Record<string, unknown> }, onprogress?: (p: Progress) => void): Promise<unknown>;
  close(): Promise<void>;
};
type Sending = { send: (message: never, options?: never) => Promise<void> };
/**
 * Progress as it comes over the wire (wire-progress.ts: onprogress can lose a step read with the
 * answer), on the token the client put on its tools/call, as the SDK's onprogress had it.
 */
function progressOnTheWire(transport: Parameters<typeof tapProgress>[0] & Partial<Sending>): (listener: ((p: Progress) => void) | undefined) => void {
  let listener: ((p: Progress) => void) | undefined;
  let token: unknown;
  assert.ok(transport?.send, "the client is connected");
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  transport.send = ((message: unknown, options?: unknown) => {
    const { method, params } = message as { method?: string; params?: { _meta?: { progressToken?: unknown } } };
    if (method === "tools/call" && listener) token = params?._meta?.progressToken;
    return send(message, options);
  }) as Sending["send"];
  tapProgress(transport, (params) => {
    if (listener && token !== undefined && params.progressToken === token) listener(progressFields(params));
  });
  return (next) => {
    listener = next;
    token = undefined;
  };
}
/** Runs one call with `onprogress` fed from the wire (the client still asks for progress, with a token of its own). */
async function withWireProgress<T>(listen: ReturnType<typeof progressOnTheWire>, onprogress: ((p: Progress) => void) | undefined, call: (asked: { onprogress?: () => void; timeout: number }) => Promise<T>): Promise<T> {
  listen(onprogress);
  try {
    return await call(onprogress ? { onprogress: () => undefined, timeout: 60_000 } : { timeout: 60_000 });
  } finally {
    listen(undefined);
  }
}
const wrapV1 = (client: V1Client): AnyClient => {
  const listen = progressOnTheWire(client.transport as Parameters<typeof progressOnTheWire>[0]);
  return {
    callTool: (params, onprogress) => withWireProgress(listen, onprogress, (asked) => client.callTool(params, undefined, asked)),
    close: () => client.close(),
  };
};
const wrapV2 = (client: V2Client): AnyClient => {
  const listen = progressOnTheWire(client.transport as Parameters<typeof progressOnTheWire>[0]);
  return {
    callTool: (params, onprogress) => withWireProgress(listen, onprogress, (asked) => client.callTool(params, asked)),
    close: () => client.close(),
  };
};

/**
 * The three things each downstream does, through `client`: the answers the test compares with the
 * direct ones. `label`: the words before the downstream's question as the user sees it ("Plugin
 * 'ln' asks: " through the runtime, which says who asks; nothing when the client talks to the
 * server directly).
 */
async function exercise(client: AnyClient, call: (tool: string, args: Record<string, unknown>) => { name: string; arguments: Record<string, unknown> }, label = ""): Promise<string[]> {
  const seen: Progress[] = [];
  const steps = await client.callTool(call("slow_steps", { steps: 5 }), (p) => void seen.push(p));
  assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3, 4, 5], `5 progress steps on the client's token (${JSON.stringify(call("slow_steps", {}).name)})`);
  assert.equal(seen[4]?.total, 5);
  const asked = QUESTIONS.length;
  const question = `Favourite colour, ${Math.random().toString(36).slice(2, 8)}?`;
  const answered = await client.callTool(call("ask_user", { question }));
  assert.deepEqual(QUESTIONS.slice(asked), [`${label}${question}`], "the user saw the downstream's question once, labelled with the plugin that asks");
  const summary = await client.callTool(call("summarize", { text: "a long text" }));
  return [steps, answered, summary].map(firstText);
}

/** What each downstream answers when the agent's client talks to it directly (the reference). */
const direct: Record<string, string[]> = {};
before(async () => {
  for (const prefix of PREFIXES) {
    // v2 client in auto mode: modern with the v2 fixture, 2025 with the v1 one, as the runtime's own client.
    const spawnAs = downstreams[prefix];
    const auto = v2Client("auto", { elicitation: { form: {} }, sampling: {} });
    auto.setRequestHandler("elicitation/create", async (request) => elicitAnswer((request.params as { message: string }).message));
    auto.setRequestHandler("sampling/createMessage", async () => sampleAnswer);
    await auto.connect(new V2Stdio({ command: spawnAs.command, args: spawnAs.args, env: baseEnv(), stderr: "pipe" }));
    try {
      direct[prefix] = await exercise(wrapV2(auto), (tool, args) => ({ name: tool, arguments: args }));
    } finally {
      await auto.close();
    }
  }
});

/** Through the runtime, the same three answers (inside the facade's JSON), for each downstream. */
async function throughRuntime(client: AnyClient): Promise<void> {
  for (const prefix of PREFIXES) {
    const texts = await exercise(client, (tool, args) => callArgs(prefix, tool, args), `Plugin '${prefix}' asks: `);
    const reference = direct[prefix] ?? [];
    assert.equal(reference.length, 3);
    reference.forEach((want, i) => {
      const got = texts[i] ?? "";
      assert.ok(got.includes(JSON.stringify(want).slice(1, -1)), `${prefix}: '${got}' carries the direct answer '${want}'`);
    });
    assert.match(texts[1] ?? "", /the user said: blue/);
    assert.match(texts[2] ?? "", /summary: a short summary/);
  }
}

describe("the agent's client in the 2025 era", () => {
  const http = httpForSuite(env);

  it("over stdio: progress, questions and sampling of both downstream eras arrive as directly", async () => {
    const client = legacyClient();
    await connectStdioV1(client, env);
    try {
      await throughRuntime(wrapV1(client));
    } finally {
      await client.close();
    }
  });

  it("over HTTP (a session answering on SSE): the same", async () => {
    const client = legacyClient();
    await connectHttpPreferringSse(client, http.url);
    try {
      await throughRuntime(wrapV1(client));
    } finally {
      await client.close();
    }
  });

  it("over HTTP answering in JSON: a client that declared elicitation and sampling is told its session cannot carry the question, not that it declared none", async () => {
    const client = legacyClient();
    // The SDK's own Accept lists JSON first: a JSON-answering session, which cannot carry a request mid-call.
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      for (const prefix of PREFIXES) {
        for (const [tool, kind, whom] of [
          ["ask_user", "elicitation", "user"],
          ["summarize", "sampling", "model"],
        ] as const) {
          const result = await client.callTool(callArgs(prefix, tool, { question: "?", text: "t" }), undefined, { timeout: 60_000 });
          const error = (JSON.parse(firstText(result)) as { error?: { message: string; hint: string } }).error;
          const where = `${prefix}/${tool}: ${firstText(result)}`;
          assert.doesNotMatch(error?.message ?? "", /did not declare/, where);
          assert.ok(
            error?.message.includes(`the agent's client declared ${kind}, but its connection cannot carry a request mid-call (a 2025-era HTTP session answering in JSON), so the runtime cannot ask its ${whom}; this request was refused`),
            where,
          );
          assert.match(error?.hint ?? "", /which cannot reach the agent's client: .*Tell the user: the tool can ask when the client connects with `Accept: text\/event-stream` before `application\/json`/, where);
        }
      }
    } finally {
      await client.close();
    }
  });

  it("a downstream log message reaches the client", async () => {
    const logs: string[] = [];
    const client = legacyClient();
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(JSON.stringify(notification.params.data)));
    await connectStdioV1(client, env);
    try {
      await client.setLoggingLevel("info");
      await client.callTool(callArgs("dn", "log_note", { note: "hello logs" }));
      await until(() => logs.some((l) => l.includes("note: hello logs")), `the downstream log message (seen: ${logs.join(" | ")})`);
    } finally {
      await client.close();
    }
  });

  it("a downstream log message of one caller's call does not reach another caller with a call in flight on the same server", async () => {
    // Two HTTP sessions share one runtime and so one 'dn' downstream. A's call is held on its
    // question while B's call logs: the log names no call, so A must not see it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const askedA = new Promise<void>((resolve) => (asked = resolve));
    const a = new V1Client({ name: "relay-a", version: "0" }, { capabilities: { elicitation: {} } });
    a.setRequestHandler(ElicitRequestSchema, async () => {
      asked();
      await released;
      return { action: "accept" as const, content: { reply: "blue" } };
    });
    const logsA: string[] = [];
    a.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logsA.push(JSON.stringify(notification.params.data)));
    const b = legacyClient();
    await connectHttpPreferringSse(a, http.url);
    await connectHttpPreferringSse(b, http.url);
    try {
      await a.setLoggingLevel("info");
      await b.setLoggingLevel("info");
      const held = a.callTool(callArgs("dn", "ask_user", { question: "colour?" }), undefined, { timeout: 60_000 });
      await askedA;
      const logged = await b.callTool(callArgs("dn", "log_note", { note: "only for B" }), undefined, { timeout: 60_000 });
      assert.match(textOf(logged), /logged/);
      // Give a wrongly routed notification time to arrive before A's call ends.
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      assert.match(textOf(await held), /blue/);
      assert.ok(!logsA.some((line) => line.includes("only for B")), `A saw B's downstream log: ${logsA.join("\n")}`);
    } finally {
      release();
      await a.close();
      await b.close();
    }
  });

  it("a call cancelled by its client withdraws the question it relayed: the client gets notifications/cancelled for it", async () => {
    // The legacy downstream does not withdraw its own question when its call is cancelled: the runtime must.
    let asked!: () => void;
    const askedNow = new Promise<void>((resolve) => (asked = resolve));
    let withdrawn!: (reason: unknown) => void;
    const questionWithdrawn = new Promise<unknown>((resolve) => (withdrawn = resolve));
    const client = new V1Client({ name: "relay-cancel", version: "0" }, { capabilities: { elicitation: {} } });
    let questions = 0;
    client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
      // The first question is answered: the v1 SDK ignores a notifications/cancelled for request id 0 (`!requestId`), and the runtime numbers its questions from 0.
      if (questions++ === 0) return { action: "accept" as const, content: { reply: "blue" } };
      asked();
      // extra.signal aborts when notifications/cancelled names this question's request id.
      await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
      withdrawn(extra.signal.reason);
      return { action: "cancel" as const };
    });
    await connectStdioV1(client, env);
    try {
      assert.match(textOf(await client.callTool(callArgs("ln", "ask_user", { question: "first?" }), undefined, { timeout: 60_000 })), /blue/);
      const controller = new AbortController();
      const call = client.callTool(callArgs("ln", "ask_user", { question: "colour?" }), undefined, { signal: controller.signal, timeout: 60_000 });
      await askedNow;
      controller.abort("the user pressed Esc");
      await assert.rejects(call);
      const reason = await Promise.race([questionWithdrawn, new Promise((resolve) => setTimeout(() => resolve("not withdrawn within 20 s"), 20_000))]);
      assert.notEqual(reason, "not withdrawn within 20 s");
    } finally {
      await client.close();
    }
  });

  it("a client that declared no elicitation gets a refusal in words, from either downstream", async () => {
    const client = legacyClient({});
    await connectStdioV1(client, env);
    try {
      for (const prefix of PREFIXES) {
        const result = await client.callTool(callArgs(prefix, "ask_user", { question: "?" }));
        assert.match(textOf(result), /did not declare elicitation/, prefix);
        // And what to do, whether the downstream refused before asking (2026-07-28) or failed after the runtime refused it (2025).
        assert.match(textOf(result), /which the agent's client cannot show \(it declared no elicitation\)\. Tell the user/, prefix);
      }
    } finally {
      await client.close();
    }
  });
});

describe("a 2025-era downstream that asks outside any call", () => {
  it("is told no call of it is in flight to relay the question through, not that the agent's client declared no sampling or elicitation", async () => {
    const client = legacyClient();
    await connectStdioV1(client, env);
    try {
      const log = path.join(dir, "asked-later.log");
      assert.match(textOf(await client.callTool(callArgs("ln", "ask_later", { log }))), /asking later/);
      // Its questions come 200 ms after its call was answered: nothing is in flight on it then.
      await until(() => existsSync(log) && readFileSync(log, "utf8").split("\n").filter(Boolean).length === 2, "the downstream's two refusals", 30_000);
      const outcomes = readFileSync(log, "utf8").split("\n").filter(Boolean).sort();
      for (const [outcome, kind, whom] of [
        [outcomes[0], "elicitation", "user"],
        [outcomes[1], "sampling", "model"],
      ]) {
        assert.ok(
          outcome?.startsWith(`${kind}: MCP error -32600: the ${kind} request arrived while no call of this server was in flight, so there is no request of the agent's client to relay it through and the runtime cannot ask its ${whom}; ask only while answering a call. This request was refused`),
          outcome,
        );
        assert.doesNotMatch(outcome ?? "", /did not declare/);
      }
      assert.deepEqual(QUESTIONS.filter((q) => q === "unasked"), [], "nothing reached the agent's user");
    } finally {
      await client.close();
    }
  });
});

describe("a downstream that answers a refused question with an isError result", () => {
  it("gets the capability hint, as one that fails with an error does", async () => {
    const client = legacyClient({});
    await connectStdioV1(client, env);
    try {
      for (const [tool, args, hint] of [
        ["summarize_soft", { text: "x" }, /^This tool asks the agent's model for a completion, which the agent's client cannot give \(it declared no sampling\)\. Tell the user: the tool works from a client that declares sampling, or use another tool\.$/],
        ["ask_user_soft", { question: "?" }, /^This tool asks its user a question, which the agent's client cannot show \(it declared no elicitation\)\. Tell the user/],
      ] as const) {
        const result = await client.callTool(callArgs("ln", tool, args));
        const error = (JSON.parse(firstText(result)) as { error?: { code: string; message: string; hint: string } }).error;
        assert.equal(error?.code, "UPSTREAM_ERROR", tool);
        assert.match(error?.message ?? "", /the tool answered with an error: MCP error/, tool);
        assert.match(error?.hint ?? "", hint, tool);
      }
    } finally {
      await client.close();
    }
  });
});

describe("the agent's client in the 2026-07-28 era (input_required rounds)", () => {
  const http = httpForSuite(env);

  it("over stdio: progress, questions and sampling of both downstream eras arrive as directly", async () => {
    const { client } = await connectStdioV2(modernClient(), env);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      await throughRuntime(wrapV2(client));
    } finally {
      await client.close();
    }
  });

  it("over HTTP: the same", async () => {
    const client = await connectHttpV2(modernClient(), http.url);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      await throughRuntime(wrapV2(client));
    } finally {
      await client.close();
    }
  });

  it("a client that declared neither elicitation nor sampling gets the refusal", async () => {
    const { client } = await connectStdioV2(v2Client("pin", {}), env);
    try {
      for (const prefix of PREFIXES) {
        const asked = await client.callTool(callArgs(prefix, "ask_user", { question: "?" }));
        assert.match(textOf(asked), /cannot ask its user/, prefix);
      }
    } finally {
      await client.close();
    }
  });
});

describe("input_required rounds on the wire (in-process handler)", () => {
  let runtime: Runtime;
  let entry: ModernEntry;
  const ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  let id = 0;
  const post = async (params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> => {
    const response = await entry.handler.fetch(
      new Request("http://in-process.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": String(params.name) },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { ...params, _meta: ENVELOPE } }),
      }),
    );
    const text = await response.text();
    // JSON or one SSE event carrying the response.
    const json = text.trimStart().startsWith("{") ? text : (text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).find((l) => l.includes(`"id":${id}`)) ?? "{}");
    return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  };
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(pluginsDir, "agent-tools-plugin-ln"), path.join(pluginsDir, "agent-tools-plugin-dn")], log: silentLogger, env: {} });
    entry = createModernEntry(runtime);
  });
  after(async () => {
    await entry.close();
    await runtime.close();
  });

  for (const prefix of PREFIXES) {
    it(`${prefix}: the question goes out as input_required, the answer resumes the same call; a replayed answer is refused`, async () => {
      const first = await post(callArgs(prefix, "ask_user", { question: "Which table?" }));
      const asked = first.result as { resultType?: string; inputRequests: Record<string, { method: string; params: { message: string } }>; requestState: string };
      const [key, request] = Object.entries(asked.inputRequests ?? {})[0] ?? [];
      assert.ok(key && request, JSON.stringify(first));
      assert.equal(request.method, "elicitation/create");
      assert.equal(request.params.message, `Plugin '${prefix}' asks: Which table?`);
      const answer = { [key]: { action: "accept", content: { reply: "orders" } } };
      const second = await post({ ...callArgs(prefix, "ask_user", { question: "Which table?" }), inputResponses: answer, requestState: asked.requestState });
      assert.match(JSON.stringify(second.result), /the user said: orders/);
      const replay = await post({ ...callArgs(prefix, "ask_user", { question: "Which table?" }), inputResponses: answer, requestState: asked.requestState });
      assert.match(JSON.stringify(replay.result), /QUESTION_EXPIRED/);
      assert.match(JSON.stringify(replay.result), /no longer waiting/);
    });
  }

  it("dn: two calls held at once on one 2026-07-28 downstream each get their own question, and each answer reaches its own call", async () => {
    const ask = async (question: string) => {
      const first = await post(callArgs("dn", "ask_user", { question }));
      const asked = first.result as { inputRequests?: Record<string, { params: { message: string } }>; requestState: string };
      const [key, request] = Object.entries(asked.inputRequests ?? {})[0] ?? [];
      assert.ok(key && request, `${question}: ${JSON.stringify(first)}`);
      assert.equal(request.params.message, `Plugin 'dn' asks: ${question}`);
      return { key, state: asked.requestState };
    };
    // Both questions open before either is answered: the second one used to be refused (its
    // downstream question found no call's relay once two calls were in flight).
    const red = await ask("Colour of call one?");
    const green = await ask("Colour of call two?");
    const answer = (held: { key: string; state: string }, question: string, reply: string) =>
      post({ ...callArgs("dn", "ask_user", { question }), inputResponses: { [held.key]: { action: "accept", content: { reply } } }, requestState: held.state });
    // Answered in the other order: each answer goes to the call that asked.
    const second = await answer(green, "Colour of call two?", "green");
    const first = await answer(red, "Colour of call one?", "red");
    assert.match(JSON.stringify(second.result), /the user said: green/);
    assert.match(JSON.stringify(first.result), /the user said: red/);
  });

  it("ln: a 2025-era downstream's question while another call is in flight on it is refused in words that say why; the held call still gets its answer", async () => {
    const first = await post(callArgs("ln", "ask_user", { question: "Held question?" }));
    const asked = first.result as { inputRequests: Record<string, unknown>; requestState: string };
    const key = Object.keys(asked.inputRequests ?? {})[0] ?? "";
    assert.ok(key, JSON.stringify(first));
    const second = await post(callArgs("ln", "ask_user", { question: "Second question?" }));
    const refused = JSON.stringify(second);
    assert.match(refused, /2 calls are in flight/, refused);
    assert.match(refused, /does not say which call/, refused);
    assert.doesNotMatch(refused, /did not declare elicitation|declared no elicitation/, "not blamed on the agent's client");
    const answered = await post({ ...callArgs("ln", "ask_user", { question: "Held question?" }), inputResponses: { [key]: { action: "accept", content: { reply: "mine" } } }, requestState: asked.requestState });
    assert.match(JSON.stringify(answered.result), /the user said: mine/);
  });

  it("a declined question reaches the downstream as declined", async () => {
    const first = await post(callArgs("dn", "ask_user", { question: "Go on?" }));
    const asked = first.result as { inputRequests: Record<string, unknown>; requestState: string };
    const key = Object.keys(asked.inputRequests)[0] ?? "";
    const second = await post({ ...callArgs("dn", "ask_user", { question: "Go on?" }), inputResponses: { [key]: { action: "decline" } }, requestState: asked.requestState });
    assert.match(JSON.stringify(second.result), /the user chose decline/);
  });

  it("a forged requestState is refused by the SDK's codec", async () => {
    const forged = await post({ ...callArgs("dn", "ask_user", { question: "?" }), inputResponses: {}, requestState: "not-a-state" });
    assert.ok(forged.error, JSON.stringify(forged));
  });
});
