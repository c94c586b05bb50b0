import { spawn } from "node:child_process";
import { baseEnv, FIXTURES, MCP_BIN } from "./helpers.js";

/** One JSON-RPC answer as it came off the server's stdout. */
export type LineAnswer = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

export interface LineServer {
  /** Send one request line and wait (15 s at most: the machine may be loaded) for the answer with its id. */
  request(id: number, method: string, params?: unknown): Promise<LineAnswer>;
  /** Send a line without waiting for anything (a notification). */
  send(message: Record<string, unknown>): void;
  /** Close stdin and wait for the process to end. */
  close(): Promise<void>;
  /** The server process's id. */
  readonly pid: number;
  /** Resolves with the exit code and signal once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Every answer read so far, in order (two answers with one id are both here). */
  lines(): LineAnswer[];
}

/**
 * The built stdio server spoken to line by line, for exchanges no SDK client sends (requests of
 * both eras on one connection, envelopes left out): each answer is read as the raw JSON-RPC line.
 */
export function lineServer(env: Record<string, string>): LineServer {
  const child = spawn(process.execPath, [MCP_BIN], { env: baseEnv(env), cwd: FIXTURES, stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let buffered = "";
  const answers = new Map<unknown, LineAnswer>();
  const waiting = new Map<unknown, (answer: LineAnswer) => void>();
  const all: LineAnswer[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (!line.trim()) continue;
      const answer = JSON.parse(line) as LineAnswer;
      all.push(answer);
      const resolve = waiting.get(answer.id);
      if (resolve) resolve(answer);
      else answers.set(answer.id, answer);
    }
  });
  const send = (message: Record<string, unknown>): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
  return {
    pid: child.pid ?? -1,
    exited,
    stderr: () => stderr,
    lines: () => [...all],
    send,
    request(id, method, params) {
      send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) });
      const early = answers.get(id);
      if (early) return Promise.resolve(early);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to request ${id} (${method}) within 15 s`)), 15_000);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(answer);
        });
      });
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
