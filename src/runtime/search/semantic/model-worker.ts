import { parentPort, workerData } from "node:worker_threads";
import { loadUseModel } from "./use-model.js";
import type { WorkerReply, WorkerRequest, WorkerSettings } from "./sentence-model.js";

/**
 * The sentence model's thread: loads the model once, says whether it is usable, then answers
 * embedding requests one at a time (TensorFlow.js runs one inference at a time anyway), queries
 * before catalog batches. The vectors travel back as transferred buffers, not copies.
 */

const port = parentPort;
if (!port) throw new Error("model-worker.ts runs as a worker thread (see sentence-model.ts)");

// This thread's stdout is the process's stdout, the stdio transport: whatever the model's
// libraries print goes to stderr instead.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const settings = (workerData ?? {}) as WorkerSettings;
const load = await loadUseModel({ ...(settings.pieceDir ? { pieceDir: settings.pieceDir } : {}), warn: (message) => process.stderr.write(`agent-tools: ${message}\n`) });
if ("unavailable" in load) port.postMessage({ type: "unavailable", reason: load.unavailable } satisfies WorkerReply);
else {
  const { model } = load;
  port.postMessage({ type: "ready", id: model.id, dimensions: model.dimensions, ...(model.approximate ? { approximate: model.approximate.id } : {}) } satisfies WorkerReply);
  // Catalog batches (bulk) come a batch ahead, so this thread has the next one at hand when the
  // main thread is busy; a query that came meanwhile still goes before it.
  const queries: WorkerRequest[] = [];
  const bulk: WorkerRequest[] = [];
  let running = false;
  const answer = async (request: WorkerRequest) => {
    try {
      const vectors = request.approximate && model.approximate ? await model.approximate.embed(request.texts) : await model.embed(request.texts);
      port.postMessage({ type: "vectors", request: request.request, vectors } satisfies WorkerReply, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (error) {
      port.postMessage({ type: "failed", request: request.request, reason: (error as Error).message.split("\n")[0] ?? String(error) } satisfies WorkerReply);
    }
  };
  const drain = async () => {
    running = true;
    for (;;) {
      const request = queries.shift() ?? bulk.shift();
      if (!request) break;
      await answer(request);
      // One turn of the event loop, so a query posted during that answer is read before the next batch.
      if (bulk.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    running = false;
  };
  port.on("message", (request: WorkerRequest) => {
    (request.bulk ? bulk : queries).push(request);
    if (!running) void drain();
  });
}
