import { isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Agent, request } from "node:http";
import fc from "fast-check";
import { baseEnv, FIXTURES, MCP_BIN, PLUGINS } from "./helpers.js";
import { INITIALIZE, MCP_HEADERS, sessionHeaders, startHttp, type RunningHttp } from "./http-helpers.js";

/**
 * Generated JSON-RPC traffic for the fuzz tests and `bench/fuzz.ts`, and the two targets it is
 * sent to: the built server over stdio and over HTTP. After every case the target must still be
 * alive, everything it wrote must be well-formed JSON-RPC (or, over HTTP, a status below 500), a
 * valid request in the case must have been answered, and a ping sent right after must answer.
 */

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "prompts/get",
  "logging/setLevel",
  "completion/complete",
  "notifications/initialized",
  "notifications/cancelled",
  "$/cancelRequest",
  "",
];
const FACADE_TOOLS = ["agent_tools_help", "agent_tools_exec", "agent_tools_search", "agent_tools_notes_discover", "agent_tools_notes_call", "agent_tools_notes_run_skill", "agent_tools_tracker_call", "agent_tools_nope_call", "agent-tools-help"];
const INNER_TOOLS = ["get_note", "list_notes", "search_notes", "create_note", "fail_always", "no_such_tool", "GET_NOTE"];

const json = fc.jsonValue({ maxDepth: 3 });
const goodId = fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 24 }));
const badId = fc.oneof(fc.constant(null), fc.double(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 2 }));
const method = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }, { weight: 1, arbitrary: json });
const toolArguments = fc.oneof(
  json,
  fc.record(
    {
      toolName: fc.oneof(fc.constantFrom(...INNER_TOOLS), json),
      arguments: json,
      confirm: fc.oneof(fc.boolean(), json),
      query: fc.oneof(fc.string({ maxLength: 30 }), json),
      limit: json,
      // agent_tools_exec: shell-ish noise and real command lines through the sandbox.
      command: fc.oneof(fc.constantFrom("status", "list", "load ../x.mjs", "notes call list_notes | jq length", "echo $((1/0))", "cat /proc/self/environ", "for i in 1 2 3; do echo $i; done"), fc.string({ maxLength: 80 }), json),
    },
    { requiredKeys: [] },
  ),
);
// `_meta` of both eras, well-formed or not: progress tokens of every JSON type, the 2026-07-28 envelope keys with garbage.
const meta = fc.oneof(
  json,
  fc.record(
    {
      progressToken: json,
      "io.modelcontextprotocol/protocolVersion": fc.oneof(fc.constantFrom("2026-07-28", "2025-06-18", "9999-99-99"), json),
      "io.modelcontextprotocol/clientInfo": fc.oneof(fc.constant({ name: "fuzz", version: "0" }), json),
      "io.modelcontextprotocol/clientCapabilities": json,
      "io.modelcontextprotocol/logLevel": fc.oneof(fc.constantFrom("debug", "error", "loud"), json),
    },
    { requiredKeys: [] },
  ),
);
const params = fc.oneof(
  json,
  fc.record({ name: fc.oneof(fc.constantFrom(...FACADE_TOOLS), fc.string({ maxLength: 40 }), json), arguments: toolArguments, _meta: meta }, { requiredKeys: [] }),
  fc.record({ protocolVersion: fc.oneof(fc.constantFrom("2025-06-18", "2025-03-26", "1999-01-01"), json), capabilities: json, clientInfo: json }, { requiredKeys: [] }),
);
const message = fc.record(
  { jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: json }), id: fc.oneof({ weight: 4, arbitrary: goodId }, { weight: 1, arbitrary: badId }), method, params },
  { requiredKeys: [] },
);

/** One case: the raw text to send. */
export const fuzzPayload: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(message, { minLength: 0, maxLength: 4 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes).toString("latin1")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 20_000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 3_000 }).map((depth) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 300_000 }).map((size) => JSON.stringify({ jsonrpc: "2.0", id: size, method: "tools/call", params: { name: "agent_tools_notes_discover", arguments: { query: "q".repeat(size) } } })),
  },
  { weight: 1, arbitrary: message.chain((m) => fc.nat(JSON.stringify(m).length).map((cut) => JSON.stringify(m).slice(0, cut))) },
);

/** `answers`: what the server wrote for the case (over HTTP: the parsed body, if any), the ping's answer left out. */
export type CaseOutcome = { ok: true; answers: unknown[] } | { ok: false; reason: string };

export interface FuzzTarget {
  readonly name: "stdio" | "http";
  run(payload: string): Promise<CaseOutcome>;
  close(): Promise<void>;
}

/**
 * What a single payload obliges the server to answer: the ids of its requests, valid or not, whose
 * id the client could match (a string or a safe integer) — a request the schema refuses gets an
 * error, not silence (over stdio the SDK alone would answer nothing: src/transports/refused-request.ts).
 */
export function expectedIds(payload: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.filter((m) => isJSONRPCRequest(m) || requestShaped(m)).map((m) => (m as { id: unknown }).id);
}

function requestShaped(m: unknown): boolean {
  if (!m || typeof m !== "object" || Array.isArray(m)) return false;
  const { method, id } = m as { method?: unknown; id?: unknown };
  return typeof method === "string" && (typeof id === "string" || Number.isSafeInteger(id));
}

/** A JSON-RPC message as the server may write it: a response with a result or an error, or a notification/request. */
export function wellFormed(value: unknown): string | undefined {
  const messages = Array.isArray(value) ? value : [value];
  for (const m of messages) {
    if (!m || typeof m !== "object") return `not an object: ${JSON.stringify(m)?.slice(0, 80)}`;
    const msg = m as Record<string, unknown>;
    if (msg.jsonrpc !== "2.0") return `jsonrpc is ${JSON.stringify(msg.jsonrpc)}`;
    if (typeof msg.method === "string") continue;
    if (!("id" in msg)) return "a response without id";
    const hasResult = "result" in msg;
    const error = msg.error as { code?: unknown; message?: unknown } | undefined;
    if (hasResult === (error !== undefined)) return "a response needs exactly one of result and error";
    if (error && (!Number.isInteger(error.code) || typeof error.message !== "string")) return `a malformed error: ${JSON.stringify(error).slice(0, 120)}`;
  }
  return undefined;
}

const CASE_TIMEOUT_MS = 15_000;

/** The built stdio server, fed one line per case. */
export async function stdioTarget(): Promise<FuzzTarget> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [MCP_BIN], {
    env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "error", AGENT_TOOLS_EXEC_TIMEOUT_MS: "3000" }),
    cwd: FIXTURES,
  });
  child.stderr.resume();
  let buffer = "";
  let broken: string | undefined;
  const seen: unknown[] = [];
  let waiter: (() => void) | undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      if (!line.trim()) continue;
      try {
        const value = JSON.parse(line) as unknown;
        const problem = wellFormed(value);
        if (problem) broken ??= `stdout line is not well-formed JSON-RPC (${problem}): ${line.slice(0, 200)}`;
        seen.push(value);
      } catch {
        broken ??= `stdout line is not JSON: ${line.slice(0, 200)}`;
      }
    }
    waiter?.();
  });
  let exited: string | undefined;
  child.once("exit", (code, signal) => {
    exited = `the server exited (code ${code}, signal ${signal})`;
    waiter?.();
  });
  const answered = (id: unknown): boolean => seen.some((m) => m && typeof m === "object" && "id" in m && JSON.stringify((m as { id: unknown }).id) === JSON.stringify(id) && !("method" in m));
  const waitFor = (ids: unknown[]): Promise<string | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        resolve(`no answer within ${CASE_TIMEOUT_MS} ms for ids ${JSON.stringify(ids.filter((id) => !answered(id)))}`);
      }, CASE_TIMEOUT_MS);
      const check = (): void => {
        if (exited || broken || ids.every(answered)) {
          clearTimeout(timer);
          waiter = undefined;
          resolve(exited ?? broken);
        }
      };
      waiter = check;
      check();
    });
  const write = (text: string): void => {
    child.stdin.write(`${text}\n`);
  };
  write(INITIALIZE);
  const initProblem = await waitFor([1]);
  if (initProblem) throw new Error(`stdio initialize failed: ${initProblem}`);
  write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  let sentinel = 0;
  return {
    name: "stdio",
    async run(payload) {
      seen.length = 0;
      // Valid requests in the case must be answered; a ping after it proves the server still serves.
      const ids = expectedIds(payload).filter((id) => !String(id).startsWith("sentinel-"));
      const ping = `sentinel-${++sentinel}`;
      write(payload.replace(/\r?\n/g, " "));
      write(JSON.stringify({ jsonrpc: "2.0", id: ping, method: "ping" }));
      const problem = await waitFor([...ids, ping]);
      return problem ? { ok: false, reason: problem } : { ok: true, answers: seen.filter((m) => (m as { id?: unknown }).id !== ping) };
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

interface HttpAnswer {
  status: number;
  contentType: string;
  sessionId: string | undefined;
  body: string;
}

function post(url: URL, agent: Agent, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { ...headers, "Content-Length": Buffer.byteLength(body) }, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      const sessionId = res.headers["mcp-session-id"];
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), sessionId: typeof sessionId === "string" ? sessionId : undefined, body: text }));
    });
    req.setTimeout(CASE_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${CASE_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** The built HTTP server; every case is one POST in a single session, then a ping. */
export async function httpTarget(running?: RunningHttp): Promise<FuzzTarget> {
  const http = running ?? (await startHttp({ AGENT_TOOLS_EXEC_TIMEOUT_MS: "3000" }));
  const url = new URL(http.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const init = await post(url, agent, MCP_HEADERS, INITIALIZE);
  const sessionId = init.sessionId;
  if (init.status !== 200 || !sessionId) throw new Error(`http initialize failed: ${init.status} ${init.body}`);
  const headers = sessionHeaders(sessionId);
  await post(url, agent, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  let sentinel = 0;
  const judge = (answer: HttpAnswer, ids: unknown[]): string | undefined => {
    if (answer.status >= 500 || answer.status < 200) return `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
    if (answer.status === 202 || !answer.body) return ids.length > 0 && answer.status === 202 ? `202 for requests ${JSON.stringify(ids)}` : undefined;
    let value: unknown;
    try {
      value = JSON.parse(answer.body);
    } catch {
      return `HTTP ${answer.status} with a body that is not JSON: ${answer.body.slice(0, 200)}`;
    }
    const problem = wellFormed(value);
    if (problem) return `HTTP ${answer.status}: ${problem}`;
    if (answer.status === 200) {
      const answeredIds = (Array.isArray(value) ? value : [value]).map((m) => JSON.stringify((m as { id?: unknown }).id));
      const missing = ids.filter((id) => !answeredIds.includes(JSON.stringify(id)));
      if (missing.length) return `no answer for ids ${JSON.stringify(missing)}`;
    }
    return undefined;
  };
  return {
    name: "http",
    async run(payload) {
      try {
        const ids = expectedIds(payload);
        const answer = await post(url, agent, headers, payload);
        const problem = judge(answer, ids);
        if (problem) return { ok: false, reason: problem };
        const ping = `sentinel-${++sentinel}`;
        const pong = await post(url, agent, headers, JSON.stringify({ jsonrpc: "2.0", id: ping, method: "ping" }));
        if (pong.status !== 200 || !pong.body.includes(ping)) return { ok: false, reason: `the ping after the case failed: ${pong.status} ${pong.body.slice(0, 200)}` };
        const parsed: unknown = answer.body ? JSON.parse(answer.body) : undefined;
        return { ok: true, answers: parsed === undefined ? [] : Array.isArray(parsed) ? parsed : [parsed] };
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    },
    async close() {
      agent.destroy();
      if (!running) await http.stop();
    },
  };
}
