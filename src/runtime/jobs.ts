import { randomUUID } from "node:crypto";
import { fromThrown, RuntimeError, type ErrorPayload } from "./errors.js";
import { unwrapResult } from "./result.js";
import type { Session } from "./session.js";

/**
 * Background jobs for work slower than one call's deadline (a large model generating, an agent
 * run): `start(fn)` returns an id at once and the caller polls `status(id)`. The store lives in
 * memory only — a restart of the server loses every job, running or finished — and it is bounded:
 * when it is full the oldest finished jobs are dropped; when every kept job is still running, a
 * new start is refused rather than letting memory grow without end.
 *
 * The runtime keeps one store per session and plugin (see `jobStoreFor`) and hands it to adapters
 * in CallContext.jobs and to skills in their third argument, so plugins share this code instead of
 * each writing their own.
 */

export type JobState = "running" | "succeeded" | "failed";

export interface JobStatus {
  id: string;
  /** What the job does, as its starter named it ("generate", "run_ephemeral_agent"). */
  kind?: string;
  state: JobState;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  /** The work's answer (an MCP CallToolResult is unwrapped like a call's result). */
  result?: unknown;
  error?: ErrorPayload;
}

export interface StartOptions {
  kind?: string;
}

export interface JobStore {
  /** Run `work` in the background; answers the new job's id at once. Throws when the store is full of running jobs. */
  start(work: (signal: AbortSignal) => Promise<unknown>, options?: StartOptions): string;
  /** A job's state, or undefined for an id that is unknown or was evicted. */
  status(id: string): JobStatus | undefined;
  /** Like status, but an unknown id throws an error that says why ids go missing. */
  require(id: string): JobStatus;
  /** Every kept job, newest first. */
  list(): JobStatus[];
  /** Abort every running job (session end) and forget them all. */
  dispose(): void;
}

export interface JobStoreOptions {
  /** Most jobs kept, running and finished together; default 50. */
  maxJobs?: number;
  now?: () => number;
}

export const DEFAULT_MAX_JOBS = 50;

interface JobRecord {
  status: JobStatus;
  started: number;
  controller: AbortController;
}

export function createJobStore(options: JobStoreOptions = {}): JobStore {
  const maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
  const now = options.now ?? Date.now;
  // Map keeps insertion order: the first finished entry found is the oldest one.
  const jobs = new Map<string, JobRecord>();

  function makeRoom(): void {
    if (jobs.size < maxJobs) return;
    for (const [id, job] of jobs) {
      if (job.status.state !== "running") {
        jobs.delete(id);
        if (jobs.size < maxJobs) return;
      }
    }
    throw new RuntimeError(
      "UPSTREAM_ERROR",
      `${jobs.size} jobs are still running, the most this server keeps; wait for one to finish (job_status) before starting another`,
      { running: jobs.size },
      "Wait for a running job to finish (check it with the plugin's job status tool), then start this one again.",
    );
  }

  function finish(job: JobRecord, outcome: { result: unknown } | { error: unknown }): void {
    if (job.status.state !== "running") return;
    const ended = now();
    job.status.finishedAt = new Date(ended).toISOString();
    job.status.durationMs = ended - job.started;
    if ("result" in outcome) {
      try {
        job.status.result = unwrapResult(outcome.result);
        job.status.state = "succeeded";
        return;
      } catch (error) {
        outcome = { error };
      }
    }
    job.status.state = "failed";
    job.status.error = fromThrown(outcome.error).toPayload();
  }

  const copy = (status: JobStatus): JobStatus => ({ ...status });

  return {
    start(work, startOptions = {}) {
      makeRoom();
      const id = `job_${randomUUID().slice(0, 8)}`;
      const started = now();
      const job: JobRecord = {
        status: { id, ...(startOptions.kind ? { kind: startOptions.kind } : {}), state: "running", startedAt: new Date(started).toISOString() },
        started,
        controller: new AbortController(),
      };
      jobs.set(id, job);
      // Deferred so that a work function that throws synchronously still yields a job id first.
      void Promise.resolve()
        .then(() => {
          // Disposed before it began (the session ended at once): do not start the work at all.
          if (job.controller.signal.aborted) throw job.controller.signal.reason;
          return work(job.controller.signal);
        })
        .then(
          (result) => finish(job, { result }),
          (error: unknown) => finish(job, { error }),
        );
      return id;
    },
    status(id) {
      const job = jobs.get(id);
      return job ? copy(job.status) : undefined;
    },
    require(id) {
      const job = jobs.get(id);
      if (job) return copy(job.status);
      const known = [...jobs.keys()].reverse().slice(0, 10);
      throw new RuntimeError(
        "ARG_VALIDATION_FAILED",
        `no job '${id}' in this session: jobs live in memory only, so an id from before a server restart, from another session, or one evicted after ${maxJobs} newer jobs is gone; list the jobs to see the ids kept`,
        { errors: [{ path: "/jobId", message: "is not a known job id" }], known },
      );
    },
    list() {
      return [...jobs.values()].reverse().map((job) => copy(job.status));
    },
    dispose() {
      for (const job of jobs.values()) if (job.status.state === "running") job.controller.abort(new Error("the session ended"));
      jobs.clear();
    },
  };
}

const SESSION_KEY = "agent-tools:jobs:";

/**
 * The job store of one plugin in one session, made on first use. Kept per session so that HTTP
 * clients do not see each other's jobs, and per plugin so that one plugin's list holds only its
 * own; the session's end aborts whatever is still running.
 */
export function jobStoreFor(session: Session, prefix: string, options?: JobStoreOptions): JobStore {
  const key = `${SESSION_KEY}${prefix}`;
  const existing = session.extensions.get(key) as JobStore | undefined;
  if (existing) return existing;
  const store = createJobStore(options);
  session.extensions.set(key, store);
  session.disposers.push(() => store.dispose());
  return store;
}
