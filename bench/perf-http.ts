import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The HTTP part of bench/perf.ts: the built HTTP server as a process, sessions opened with plain fetch. */

export interface HttpServer {
  url: string;
  pid: number;
  /** Settled memory (after two full GCs), from a server started with `HEAP_PROBE_ARGS`. */
  heap: () => Promise<HeapReading>;
  stop: () => Promise<void>;
}

export interface HeapReading {
  heapUsed: number;
  rss: number;
  external: number;
}

/** Node arguments that let `HttpServer.heap` read settled memory (see bench/fixtures/heap-probe.mjs). */
export const HEAP_PROBE_ARGS = ["--expose-gc", "--import", fileURLToPath(new URL("./fixtures/heap-probe.mjs", import.meta.url))];

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
      // Keep draining stderr (request log lines) without holding them; only a heap probe's answer is read.
      child.stderr.off("data", onData);
      let partial = "";
      let waiting: ((line: string) => void) | undefined;
      child.stderr.on("data", (more: Buffer) => {
        const lines = (partial + more.toString()).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.startsWith("[heap] ")) waiting?.(line.slice(7));
      });
      resolve({
        url: match[1],
        pid: child.pid ?? -1,
        heap: () =>
          new Promise((resolveHeap, rejectHeap) => {
            const late = setTimeout(() => rejectHeap(new Error("the heap probe did not answer in 30 s (start the server with HEAP_PROBE_ARGS)")), 30_000);
            waiting = (line) => {
              clearTimeout(late);
              waiting = undefined;
              const [heapUsed, rss, external] = line.split(" ").map(Number);
              if (heapUsed === undefined || rss === undefined || external === undefined || [heapUsed, rss, external].some(Number.isNaN)) rejectHeap(new Error(`heap probe: ${line}`));
              else resolveHeap({ heapUsed, rss, external });
            };
            child.kill("SIGUSR2");
          }),
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

/** One client session as a real client opens it: initialize, initialized, tools/list. Left open; its id is returned. */
async function openSession(url: string, n: number): Promise<string> {
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
  return session;
}

/** Open `count` sessions, 8 at a time; their ids. */
export async function openHttpSessions(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) ids.push(await openSession(url, next++));
  }));
  return ids;
}

/** Close these sessions as a client does (DELETE), 8 at a time. */
export async function closeHttpSessions(url: string, ids: readonly string[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < ids.length) {
      const response = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": ids[next++] ?? "" } });
      await response.text();
      if (!response.ok) throw new Error(`DELETE answered HTTP ${response.status}`);
    }
  }));
}
