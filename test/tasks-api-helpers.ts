import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { listenOnLoopback } from "./fixtures/loopback.js";
import { connect, forSuite, ROOT, type Connected } from "./helpers.js";

/** The reference tasks API (examples/tasks-api/server.mjs) as its own process on a free port. */

const SERVER = path.join(ROOT, "examples", "tasks-api", "server.mjs");

export interface TasksApi {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

export function startTasksApi(dbFile: string, key: string): Promise<TasksApi> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH ?? "", TASKS_API_KEY: key, TASKS_DB_FILE: dbFile, TASKS_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`tasks-api exited with ${code}: ${stderr}`)));
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve({ url: match[1]!, child, stderr: () => stderr, stop });
    });
  });
}


/** The bundled tasks plugin over stdio, against a tasks API of its own (a fresh database and key). */
export interface TasksAgent {
  key: string;
  api: TasksApi;
  agent: Connected;
}

/** A TasksAgent for the enclosing describe block (forSuite): started before its tests, stopped and removed after. */
export function tasksAgentForSuite(label: string): TasksAgent {
  const key = `tasks-key-${randomBytes(12).toString("hex")}`;
  let dir = "";
  return forSuite(
    async () => {
      dir = mkdtempSync(path.join(tmpdir(), `${label}-`));
      const api = await startTasksApi(path.join(dir, "tasks.sqlite"), key);
      const agent = await connect(path.join(ROOT, "plugins", "agent-tools-plugin-tasks"), { TASKS_API_BASE: api.url, TASKS_API_KEY: key });
      return { key, api, agent };
    },
    async ({ api, agent }) => {
      await agent.close();
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  );
}

/**
 * What a test's proxy in front of the tasks API does to one exchange. `request` runs before it is
 * forwarded and `answer` once the API's answer is read; either returns true when it answered (or
 * cut) the exchange itself. Otherwise the answer is passed on as it came.
 */
export interface ProxyHooks {
  request?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  answer?: (req: http.IncomingMessage, res: http.ServerResponse, upstream: http.IncomingMessage, body: Buffer) => boolean;
  /** The API could not be reached; by default a 502 naming the error. */
  unreachable?: (res: http.ServerResponse, error: Error) => void;
}

export interface TasksProxy {
  url: string;
  close: () => Promise<void>;
}

/** A pass-through HTTP proxy on a free loopback port to the API at `target()` (which may restart elsewhere). */
export async function startProxy(target: () => string, hooks: ProxyHooks = {}): Promise<TasksProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (hooks.request?.(req, res)) return;
      const headers = { ...req.headers };
      delete headers.host;
      const upstream = http.request(new URL(req.url ?? "/", target()), { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on("data", (c: Buffer) => parts.push(c));
        answer.on("end", () => {
          const body = Buffer.concat(parts);
          if (hooks.answer?.(req, res, answer, body)) return;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(body);
        });
      });
      upstream.on("error", (error) => {
        if (hooks.unreachable) return hooks.unreachable(res, error);
        res.writeHead(502);
        res.end(String(error));
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.origin, close: listening.close };
}
