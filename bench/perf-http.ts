import { spawn } from "node:child_process";

/** The HTTP part of bench/perf.ts: the built HTTP server as a process, sessions opened with plain fetch. */

export interface HttpServer {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** `nodeArgs` go before the script (e.g. `--cpu-prof`, which NODE_OPTIONS does not take). */
export function startHttpServer(bin: string, env: Record<string, string>, cwd: string, nodeArgs: readonly string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [...nodeArgs, bin], { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`HTTP server did not start in 30 s:\n${stderr}`)), 30_000);
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /over HTTP at (http:\/\/\S+)/.exec(stderr);
      if (!match?.[1]) return;
      clearTimeout(timer);
      // Keep draining stderr (request log lines) without holding them.
      child.stderr.off("data", onData);
      child.stderr.resume();
      resolve({
        url: match[1],
        pid: child.pid ?? -1,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    };
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP server exited with ${code} before listening:\n${stderr}`));
    });
  });
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(url: string, body: unknown, session?: string): Promise<Response> {
  const response = await fetch(url, { method: "POST", headers: { ...HEADERS, ...(session ? { "mcp-session-id": session } : {}) }, body: JSON.stringify(body) });
  if (!response.ok && response.status !== 202) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return response;
}

/** One client session as a real client opens it: initialize, initialized, tools/list. Left open. */
async function openSession(url: string, n: number): Promise<void> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `perf-${n}`, version: "0" } },
  });
  const session = init.headers.get("mcp-session-id");
  await init.text();
  if (!session) throw new Error("initialize answered without Mcp-Session-Id");
  await (await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  await (await post(url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session)).text();
}

/** Open `count` sessions, 8 at a time. */
export async function openHttpSessions(url: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) await openSession(url, next++);
  }));
}
