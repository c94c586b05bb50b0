import { parentPort } from "node:worker_threads";
import { loadSentenceModelHere } from "./sentence-model.js";

/**
 * The worker thread the sentence model runs in (model-client.ts starts it): loading the weights
 * and every inference take whole seconds of CPU under load, and on the main thread they would
 * stall every session's requests. It loads the model once, says whether it is there, then embeds
 * one batch per message, answering with all vectors in one transferred Float32Array.
 */

export type ToWorker = { request: number; texts: string[] };
export type FromWorker =
  | { kind: "ready"; id: string; dimensions: number }
  | { kind: "unavailable"; reason: string }
  | { kind: "vectors"; request: number; data: Float32Array }
  | { kind: "failed"; request: number; message: string };

// The process's stdout speaks MCP in stdio mode: anything a library logs from here goes to stderr.
// (Capturing the worker's stdout instead, `stdout: true`, would keep the process alive when idle.)
// eslint-disable-next-line no-console -- reassigned, not called
console.log = console.info = console.debug = console.error;

const port = parentPort;
if (!port) throw new Error("model-worker.ts runs as a worker thread (model-client.ts starts it)");

const load = await loadSentenceModelHere({});
if ("unavailable" in load) {
  port.postMessage({ kind: "unavailable", reason: load.unavailable } satisfies FromWorker);
} else {
  const { model } = load;
  port.postMessage({ kind: "ready", id: model.id, dimensions: model.dimensions } satisfies FromWorker);
  port.on("message", (message: ToWorker) => {
    model.embed(message.texts).then(
      (vectors) => {
        const data = new Float32Array(vectors.length * model.dimensions);
        vectors.forEach((v, i) => data.set(v, i * model.dimensions));
        port.postMessage({ kind: "vectors", request: message.request, data } satisfies FromWorker, [data.buffer]);
      },
      (error: unknown) => port.postMessage({ kind: "failed", request: message.request, message: (error as Error).message } satisfies FromWorker),
    );
  });
}
