import { Worker } from "node:worker_threads";
import { isOffValue } from "../../../env-switch.js";
import path from "node:path";
import { RUNTIME_ROOT } from "../../../paths.js";

/**
 * The sentence-embedding model behind semantic search, loaded lazily: the packages are optional
 * dependencies, so an install without them (or `AGENT_TOOLS_SEMANTIC=off`) searches with BM25F
 * alone. The model (use-model.ts) runs in a worker thread of its own: loading it costs a second or
 * more of CPU and every inference tens to hundreds of ms, and on the main thread that stalled
 * every other session's calls for as long (issue #15: a p99 of 12 s, the same for every kind of
 * call). Here the main thread only posts texts and receives vectors.
 */

export interface SentenceModel {
  /** Names the model and its text recipe: cached vectors are only reused under the same id. */
  readonly id: string;
  readonly dimensions: number;
  /** One unit-length vector per text. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export type ModelLoad = { model: SentenceModel } | { unavailable: string };

/** The environment switch that hides the model (tests of the fallback, or a user who wants BM25F only). */
export const SEMANTIC_ENV = "AGENT_TOOLS_SEMANTIC";

export function semanticDisabled(env: NodeJS.ProcessEnv): boolean {
  return isOffValue(env[SEMANTIC_ENV]);
}

export function unitVector(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** Main thread -> model thread. */
export interface WorkerRequest {
  request: number;
  texts: string[];
}

/** Model thread -> main thread: first whether the model loaded, then one answer per request. */
export type WorkerReply =
  | { type: "ready"; id: string; dimensions: number }
  | { type: "unavailable"; reason: string }
  | { type: "vectors"; request: number; vectors: Float32Array[] }
  | { type: "failed"; request: number; reason: string };

/**
 * The model's thread: the compiled dist/…/model-worker.js, or its .ts source when run through tsx.
 * Found from the package root, not from this file: built, this code sits in a bundle chunk.
 */
function startWorker(): Worker {
  // The thread's stdout is ours (the stdio transport): model-worker.ts sends it to stderr. Not
  // `stdout: true` here: a worker whose output streams are read keeps the process alive.
  const options = {} as const;
  if (!import.meta.url.endsWith(".ts")) return new Worker(path.join(RUNTIME_ROOT, "dist", "runtime", "search", "semantic", "model-worker.js"), options);
  // From source (tests, benches): on Node 20 a worker thread does not inherit tsx's loader from
  // --import, so the thread registers it before importing its .ts entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./model-worker.ts", import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, { ...options, eval: true });
}

let loading: Promise<ModelLoad> | undefined;

/** Load the model once per process, in its worker thread; every caller shares the same promise. */
export function loadSentenceModel(env: NodeJS.ProcessEnv = process.env): Promise<ModelLoad> {
  if (semanticDisabled(env)) return Promise.resolve({ unavailable: `${SEMANTIC_ENV}=${env[SEMANTIC_ENV]}` });
  loading ??= startModelThread();
  return loading;
}

function startModelThread(): Promise<ModelLoad> {
  return new Promise<ModelLoad>((resolve) => {
    let worker: Worker;
    try {
      worker = startWorker();
    } catch (error) {
      resolve({ unavailable: `the sentence model's thread did not start: ${(error as Error).message}` });
      return;
    }
    // An idle model thread does not keep the process alive; one loading or with requests in flight does.
    const pending = new Map<number, { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void }>();
    let next = 0;
    let stopped: string | undefined;
    const settle = (request: number) => {
      const waiter = pending.get(request);
      pending.delete(request);
      if (pending.size === 0) worker.unref();
      return waiter;
    };
    worker.on("message", (reply: WorkerReply) => {
      switch (reply.type) {
        case "ready":
          if (pending.size === 0) worker.unref();
          resolve({
            model: {
              id: reply.id,
              dimensions: reply.dimensions,
              embed(texts) {
                if (texts.length === 0) return Promise.resolve([]);
                if (stopped) return Promise.reject(new Error(stopped));
                const request = next++;
                return new Promise<Float32Array[]>((resolveEmbed, rejectEmbed) => {
                  if (pending.size === 0) worker.ref();
                  pending.set(request, { resolve: resolveEmbed, reject: rejectEmbed });
                  worker.postMessage({ request, texts: [...texts] } satisfies WorkerRequest);
                });
              },
            },
          });
          return;
        case "unavailable":
          resolve({ unavailable: reply.reason });
          void worker.terminate();
          return;
        case "vectors":
          settle(reply.request)?.resolve(reply.vectors);
          return;
        case "failed":
          settle(reply.request)?.reject(new Error(`embedding failed: ${reply.reason}`));
      }
    });
    const fail = (why: string) => {
      stopped ??= `the sentence model's thread stopped (${why})`;
      resolve({ unavailable: stopped });
      for (const request of [...pending.keys()]) settle(request)?.reject(new Error(stopped));
    };
    worker.on("error", (error) => fail(error.message.split("\n")[0] ?? String(error)));
    worker.on("exit", (code) => fail(`exit code ${code}`));
  });
}
