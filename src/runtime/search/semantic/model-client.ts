import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { FromWorker, ToWorker } from "./model-worker.js";
import { SEMANTIC_ENV, semanticDisabled, type ModelLoad, type SentenceModel } from "./sentence-model.js";

/**
 * The sentence model as the runtime uses it: in one worker thread per process (model-worker.ts),
 * so the seconds of loading and each inference run beside the event loop instead of on it (under
 * a few hundred sessions an in-thread model froze every request while it worked).
 *
 * One batch is in the worker at a time and the rest wait here, queries ahead of catalog batches:
 * a query waits for at most the batch being embedded, not for the whole catalog. The worker keeps
 * the process alive only while it has work (loading, or a batch), so a CLI run still exits.
 */

interface Job {
  texts: string[];
  urgent: boolean;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

/**
 * A worker on model-worker beside this file. Built, that is model-worker.js. Run from source under
 * tsx (tests, benches), it is model-worker.ts, and Node 20 does not carry the parent's `--import
 * tsx` hooks into workers: a small bootstrap registers tsx in the worker first.
 */
function newModelWorker(): Worker {
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `model-worker${path.extname(here)}`);
  if (path.extname(here) !== ".ts") return new Worker(entry);
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => m.register()).then(() => import(${JSON.stringify(pathToFileURL(entry).href)}))`;
  return new Worker(bootstrap, { eval: true });
}

function startWorker(): Promise<ModelLoad> {
  return new Promise<ModelLoad>((resolveLoad) => {
    let worker: Worker;
    try {
      worker = newModelWorker();
    } catch (error) {
      resolveLoad({ unavailable: `the model worker could not start: ${(error as Error).message}` });
      return;
    }
    const queue: Job[] = [];
    let busy: (Job & { request: number }) | undefined;
    let nextRequest = 1;
    let dead: string | undefined;
    let dimensions = 0;

    function pump(): void {
      if (busy) return;
      if (dead) {
        for (const job of queue.splice(0)) job.reject(new Error(dead));
        return;
      }
      if (queue.length === 0) {
        worker.unref();
        return;
      }
      const urgent = queue.findIndex((job) => job.urgent);
      const job = queue.splice(urgent >= 0 ? urgent : 0, 1)[0]!;
      busy = { ...job, request: nextRequest++ };
      worker.ref();
      worker.postMessage({ request: busy.request, texts: job.texts } satisfies ToWorker);
    }

    function die(reason: string): void {
      if (dead) return;
      dead = reason;
      resolveLoad({ unavailable: reason });
      busy?.reject(new Error(reason));
      busy = undefined;
      pump();
    }

    worker.on("message", (message: FromWorker) => {
      switch (message.kind) {
        case "unavailable":
          die(message.reason);
          void worker.terminate();
          return;
        case "ready": {
          dimensions = message.dimensions;
          const model: SentenceModel = {
            id: message.id,
            dimensions,
            embed(texts, options = {}) {
              if (texts.length === 0) return Promise.resolve([]);
              return new Promise<Float32Array[]>((resolve, reject) => {
                queue.push({ texts: [...texts], urgent: options.urgent === true, resolve, reject });
                pump();
              });
            },
          };
          resolveLoad({ model });
          pump();
          return;
        }
        case "vectors":
        case "failed": {
          const job = busy;
          if (!job || job.request !== message.request) return;
          busy = undefined;
          if (message.kind === "failed") job.reject(new Error(`the sentence model failed: ${message.message}`));
          // Views on one transferred buffer, one row a text (unit length already).
          else job.resolve(job.texts.map((_, i) => message.data.subarray(i * dimensions, (i + 1) * dimensions)));
          pump();
          return;
        }
      }
    });
    worker.on("error", (error) => die(`the model worker failed: ${error.message.split("\n")[0]}`));
    worker.on("exit", (code) => die(`the model worker exited (code ${code})`));
  });
}

let loading: Promise<ModelLoad> | undefined;

/** The process's one model worker, started on the first call; every caller shares it. */
export function loadSentenceModel(env: NodeJS.ProcessEnv = process.env): Promise<ModelLoad> {
  if (semanticDisabled(env)) return Promise.resolve({ unavailable: `${SEMANTIC_ENV}=${env[SEMANTIC_ENV]}` });
  loading ??= startWorker();
  return loading;
}
