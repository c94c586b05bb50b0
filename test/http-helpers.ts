import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import path from "node:path";
import { baseEnv, FIXTURES, forSuite, PLUGINS, ROOT } from "./helpers.js";
import { until, WAIT_MS } from "./wait.js";

/** Helpers of the http.* tests: the built HTTP server as a real process, raw requests, SDK clients. */

export const HTTP_BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp-http.js");

export interface RunningHttp {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
}

/** The built HTTP server for the enclosing describe block (forSuite). */
export function httpForSuite(extraEnv: Record<string, string> = {}, args: string[] = []): RunningHttp {
  return forSuite(
    () => startHttp(extraEnv, args),
    (running) => running.stop(),
  );
}

/**
 * Connect a v1 SDK client over Streamable HTTP asking for SSE answers, so its session can carry
 * the server's requests (questions, sampling) mid-call: a JSON-answering session cannot.
 * `extraHeaders` go on every request (a bearer token).
 */
export async function connectHttpPreferringSse(client: Client, url: string, extraHeaders: Record<string, string> = {}): Promise<void> {
  const preferSse: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
    if (init?.method === "POST") headers.set("accept", "text/event-stream, application/json");
    return fetch(input, { ...init, headers });
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: preferSse }));
}

/**
 * Start dist/bin/agent-tools-mcp-http.js on a free port and wait for the line that names its URL.
 * A server that has not said so within `startTimeoutMs` (30 s by default: a loaded machine) is killed, and the promise rejects once it
 * has ended: a live child's pipes would keep the test file running after its tests.
 */
export function startHttp(extraEnv: Record<string, string> = {}, args: string[] = [], startTimeoutMs = WAIT_MS): Promise<RunningHttp> {
  const child = spawn(process.execPath, [HTTP_BIN, ...args], {
    env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_HTTP_PORT: "0", ...extraEnv }),
    cwd: FIXTURES,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // SIGTERM lets it stop any server it started; SIGKILL if it does not end soon.
      child.kill("SIGTERM");
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"), 2000).unref();
    }, startTimeoutMs);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    let listening = false;
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      // Only until the server has said where it listens: a long run logs a line per request.
      if (listening) return;
      const match = /over HTTP at (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        listening = true;
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          stderr: () => stderr,
          exited,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
            await exited;
            if (stdout.trim()) throw new Error(`the HTTP server wrote to stdout: ${stdout.slice(0, 200)}`);
          },
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(timedOut ? `HTTP server did not start in ${startTimeoutMs} ms (killed):\n${stderr}` : `HTTP server exited with ${code} before listening:\n${stderr}`));
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => { jsonrpc?: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** A request with full control of the headers (fetch will not send a foreign Host). */
export function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: options.method ?? "POST", headers: options.headers ?? {} },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }));
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-test", version: "0.0.0" } },
});

/** A request's headers inside a session that initialized in the 2025 era (`extra` first, so it cannot override them). */
export function sessionHeaders(id: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...MCP_HEADERS, ...extra, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" };
}

export const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });

/** Initialize by hand; returns the session id the server issued. */
export async function rawInitialize(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await raw(url, { headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });
  const id = res.headers["mcp-session-id"];
  if (res.status !== 200 || typeof id !== "string") throw new Error(`initialize failed: ${res.status} ${res.body}`);
  await raw(url, { headers: sessionHeaders(id, headers), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  return id;
}

export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "agent-tools-http-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** Wait until `check` holds (stderr lines arrive a little after the answer they describe); seconds of bound, see wait.ts. */
export function eventually(check: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  return until(check, what, ms);
}
