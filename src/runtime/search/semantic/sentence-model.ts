import os from "node:os";
import { Worker } from "node:worker_threads";
import { isOffValue } from "../../../env-switch.js";
import { positiveInt } from "../../../positive-int.js";
import path from "node:path";
import { RUNTIME_ROOT } from "../../../paths.js";
import { embeddingCacheDir } from "./embedding-cache.js";

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
  /**
   * One unit-length vector per text. `bulk`: a catalog batch, which may wait behind queries and
   * be embedded on another thread.
   */
  embed(texts: readonly string[], options?: { bulk?: boolean }): Promise<Float32Array[]>;
  /**
   * Cheaper vectors in the same space, good enough to rank a large catalog while `embed` works
   * through it (piece-vectors.ts). Never cached under `id`: the model's own vectors replace them.
   */
  readonly approximate?: ApproximateModel;
}

export interface ApproximateModel {
  /** Names the approximation (for logs and tests; its vectors are not kept on disk). */
  readonly id: string;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export type ModelLoad = { model: SentenceModel } | { unavailable: string };

/** The environment switch that hides the model (tests of the fallback, or a user who wants BM25F only). */
export const SEMANTIC_ENV = "AGENT_TOOLS_SEMANTIC";

export function semanticDisabled(env: NodeJS.ProcessEnv): boolean {
  return isOffValue(env[SEMANTIC_ENV]);
}

/** Why the model is off by the user's choice ("AGENT_TOOLS_SEMANTIC=off"), or undefined when it may load. */
export function semanticOffReason(env: NodeJS.ProcessEnv): string | undefined {
  return semanticDisabled(env) ? `${SEMANTIC_ENV}=${env[SEMANTIC_ENV]}` : undefined;
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
  /** The model's approximate vectors instead of its own. */
  approximate?: boolean;
  /** A catalog batch: answered after any query that waits. */
  bulk?: boolean;
}

/** What the model's thread is started with. */
export interface WorkerSettings {
  /** Where the approximate vectors' piece table is kept (the embeddings folder), if anywhere. */
  pieceDir?: string;
}

/** Model thread -> main thread: first whether the model loaded, then one answer per request. */
export type WorkerReply =
  | { type: "ready"; id: string; dimensions: number; approximate?: string }
  | { type: "unavailable"; reason: string }
  | { type: "vectors"; request: number; vectors: Float32Array[] }
  | { type: "failed"; request: number; reason: string };

/**
 * The model's thread: the compiled dist/…/model-worker.js, or its .ts source when run through tsx.
 * Found from the package root, not from this file: built, this code sits in a bundle chunk.
 */
function startWorker(settings: WorkerSettings): Worker {
  // The thread's stdout is ours (the stdio transport): model-worker.ts sends it to stderr. Not
  // `stdout: true` here: a worker whose output streams are read keeps the process alive.
  const options = { workerData: settings };
  if (!import.meta.url.endsWith(".ts")) return new Worker(path.join(RUNTIME_ROOT, "dist", "runtime", "search", "semantic", "model-worker.js"), options);
  // From source (tests, benches): on Node 20 a worker thread does not inherit tsx's loader from
  // --import, so the thread registers it before importing its .ts entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./model-worker.ts", import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, { ...options, eval: true });
}

/** Whether a thread's model loaded: its id and size, and the id of its approximate vectors if it has them. */
type ThreadState = { id: string; dimensions: number; approximate?: string } | { unavailable: string };

/** One model thread: loaded or not, and its requests in flight. */
interface ModelThread {
  /** Resolves once the thread says whether the model loaded. */
  ready: Promise<ThreadState>;
  inFlight(): number;
  embed(texts: readonly string[], kind?: { approximate?: boolean; bulk?: boolean }): Promise<Float32Array[]>;
  terminate(): void;
}

function startModelThread(settings: WorkerSettings): ModelThread {
  let worker: Worker;
  let resolveReady!: (value: ThreadState) => void;
  const ready = new Promise<ThreadState>((resolve) => (resolveReady = resolve));
  const pending = new Map<number, { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void }>();
  let next = 0;
  let stopped: string | undefined;
  const thread: ModelThread = {
    ready,
    inFlight: () => pending.size,
    embed(texts, kind = {}) {
      if (texts.length === 0) return Promise.resolve([]);
      if (stopped) return Promise.reject(new Error(stopped));
      const request = next++;
      return new Promise<Float32Array[]>((resolveEmbed, rejectEmbed) => {
        if (pending.size === 0) worker.ref();
        pending.set(request, { resolve: resolveEmbed, reject: rejectEmbed });
        worker.postMessage({ request, texts: [...texts], ...(kind.approximate ? { approximate: true } : {}), ...(kind.bulk ? { bulk: true } : {}) } satisfies WorkerRequest);
      });
    },
    terminate() {
      stopped ??= "the sentence model's thread was stopped";
      void worker.terminate();
    },
  };
  try {
    worker = startWorker(settings);
  } catch (error) {
    stopped = `the sentence model's thread did not start: ${(error as Error).message}`;
    resolveReady({ unavailable: stopped });
    return thread;
  }
  // An idle model thread does not keep the process alive; one loading or with requests in flight does.
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
        resolveReady({ id: reply.id, dimensions: reply.dimensions, ...(reply.approximate ? { approximate: reply.approximate } : {}) });
        return;
      case "unavailable":
        resolveReady({ unavailable: reply.reason });
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
    resolveReady({ unavailable: stopped });
    for (const request of [...pending.keys()]) settle(request)?.reject(new Error(stopped));
  };
  worker.on("error", (error) => fail(error.message.split("\n")[0] ?? String(error)));
  worker.on("exit", (code) => fail(`exit code ${code}`));
  return thread;
}

/**
 * `AGENT_TOOLS_SEMANTIC_THREADS`: how many model threads may embed a catalog at once (default 2
 * where the machine has two cores or more, else 1). The second is started only for a large
 * embedding and stopped once it has been idle a few seconds.
 */
export const SEMANTIC_THREADS_ENV = "AGENT_TOOLS_SEMANTIC_THREADS";

function threadsFromEnv(env: NodeJS.ProcessEnv): number {
  // A value that is not a count is said at start (config/env-settings.ts) and the default applies.
  const wanted = positiveInt(env[SEMANTIC_THREADS_ENV]) ?? os.availableParallelism();
  return Math.min(wanted, 2);
}

/**
 * Catalog batches a thread is given at once: it embeds one and has the next at hand, so it does not
 * wait while the main thread is busy (writing the cache file, say). Queries go before that next
 * one in the thread (model-worker.ts), so a query still waits behind one batch at most.
 */
const BULK_AHEAD = 2;
/** Bulk batches waiting before a helper thread is worth its load (about a second of CPU). */
const HELPER_AFTER_BATCHES = 4;
/** A helper idle this long is stopped (its wasm heap is about 115 MB). */
const HELPER_IDLE_MS = 5_000;

let loading: Promise<ModelLoad> | undefined;

/** Load the model once per process, in its worker thread; every caller shares the same promise. */
export function loadSentenceModel(env: NodeJS.ProcessEnv = process.env): Promise<ModelLoad> {
  const off = semanticOffReason(env);
  if (off) return Promise.resolve({ unavailable: off });
  const pieceDir = embeddingCacheDir(env);
  loading ??= startModelPool(threadsFromEnv(env), pieceDir ? { pieceDir } : {});
  return loading;
}

/**
 * The model behind one or two threads. A query goes at once to the thread with fewer requests in
 * flight. Catalog batches (`bulk`) wait here and are handed to a thread BULK_AHEAD at a time; the
 * thread answers a query before its next batch, so a query never queues behind more than the batch
 * being embedded; when several wait, a second thread is started
 * (the model's WebAssembly backend runs one thread per instance in Node) and the catalog is
 * embedded on two cores.
 */
async function startModelPool(maxThreads: number, settings: WorkerSettings): Promise<ModelLoad> {
  const primary = startModelThread(settings);
  const loaded = await primary.ready;
  if ("unavailable" in loaded) return loaded;
  const threads: ModelThread[] = [primary];
  let helper: { thread: ModelThread; ready: boolean } | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const waiting: { texts: readonly string[]; resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }[] = [];

  function pump(): void {
    for (const thread of threads) {
      while (waiting.length > 0 && thread.inFlight() < BULK_AHEAD) give(thread, waiting.shift()!);
    }
    if (waiting.length >= HELPER_AFTER_BATCHES && !helper && maxThreads > 1) startHelper();
    if (helper?.ready && waiting.length === 0 && helper.thread.inFlight() === 0) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => dropHelper(), HELPER_IDLE_MS).unref();
    }
  }

  function give(thread: ModelThread, job: (typeof waiting)[number]): void {
    thread.embed(job.texts, { bulk: true }).then(
      (vectors) => (job.resolve(vectors), pump()),
      (error: Error) => {
        // A helper that died hands its batches back; the primary's failures are the caller's.
        if (thread !== primary) {
          // Drop it even with its other batch in flight (that one comes back here too), and only
          // the thread that failed: a helper started since is not this one.
          if (helper?.thread === thread) dropHelper(true);
          waiting.unshift(job);
          pump();
        } else job.reject(error);
      },
    );
  }

  function startHelper(): void {
    const thread = startModelThread(settings);
    const entry = { thread, ready: false };
    helper = entry;
    void thread.ready.then((state) => {
      if (helper !== entry) return;
      if ("unavailable" in state) {
        // Not worth a retry: the catalog goes on with one thread.
        maxThreads = 1;
        helper = undefined;
        return;
      }
      entry.ready = true;
      threads.push(thread);
      pump();
    });
  }

  /** Stop the helper thread; unless `failed`, only when it is idle. */
  function dropHelper(failed = false): void {
    if (!helper) return;
    const { thread } = helper;
    // Busy again since the idle timer was set (a query went to it): not idle after all.
    if (!failed && thread.inFlight() > 0 && helper.ready) return;
    helper = undefined;
    const at = threads.indexOf(thread);
    if (at > 0) threads.splice(at, 1);
    thread.terminate();
  }

  return {
    model: {
      id: loaded.id,
      dimensions: loaded.dimensions,
      ...(loaded.approximate
        ? {
            approximate: {
              id: loaded.approximate,
              // The primary thread only: it builds and holds the piece table (16 MB), and these
              // requests are short (a catalog chunk in well under a second).
              embed: (texts: readonly string[]) => primary.embed(texts, { approximate: true }),
            },
          }
        : {}),
      embed(texts, options) {
        if (texts.length === 0) return Promise.resolve([]);
        if (!options?.bulk) {
          const done = threads.reduce((a, b) => (b.inFlight() < a.inFlight() ? b : a)).embed(texts);
          // The thread comes free for a waiting catalog batch once this answer is in.
          void done.then(pump, pump);
          return done;
        }
        clearTimeout(idleTimer);
        return new Promise<Float32Array[]>((resolve, reject) => {
          waiting.push({ texts, resolve, reject });
          pump();
        });
      },
    },
  };
}
