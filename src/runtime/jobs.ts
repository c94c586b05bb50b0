import { nodeCrypto } from "../node-crypto.js";
import { bytesDescriptor, isBytes } from "../binary-value.js";
import { createMemoryJobRecords } from "../state/memory.js";
import type { JobRecords, StateLoss, StoredJob } from "../state/types.js";
import { fromThrown, RuntimeError, type ErrorPayload } from "../errors.js";
import { boundError } from "./error-bound.js";
import { unwrapResult } from "./result.js";
import { findUnserialisable, unserialisableError } from "./unserialisable.js";
import type { Session } from "./session.js";

/**
 * How a job its owner cancelled ends, wherever it ran: the same message and hint whether this
 * instance stopped it or recorded another instance's job as cancelled (not the generic "the
 * service failed" hint a thrown Error would get).
 */
function cancelledByOwner(): RuntimeError {
  return new RuntimeError("UPSTREAM_ERROR", "the job was cancelled", {}, "Start it again if it is still needed.");
}

/**
 * Background jobs for work slower than one call's deadline (a large model generating, an agent
 * run): `start(fn)` answers an id at once and the caller polls `status(id)`. The work runs in the
 * process that started it; the job's record lives in the shared state's job records: in memory
 * by default (a restart loses every job), in Redis for a team gateway, where a job started through
 * one instance is seen, polled and cancelled through any other, and a job whose instance stopped
 * sending heartbeats is reported `lost` instead of running forever.
 *
 * Bounded: when a scope holds `maxJobs` the oldest finished jobs are dropped; when every kept job
 * is still running, a new start is refused rather than letting memory grow without end.
 *
 * Every method answers a promise (the records may be remote); plugins get a store in
 * CallContext.jobs and skills in their third argument, so they share this code.
 */

export type JobState = "running" | "succeeded" | "failed" | "cancelled" | "lost";

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
  /** The instance running (or that ran) the work, when the records are shared. */
  instance?: string;
}

export interface StartOptions {
  kind?: string;
}

export interface JobStore {
  /** Run `work` in the background; answers the new job's id at once. Rejects when the store is full of running jobs. */
  start(work: (signal: AbortSignal) => Promise<unknown>, options?: StartOptions): Promise<string>;
  /** A job's state, or undefined for an id that is unknown or was evicted. */
  status(id: string): Promise<JobStatus | undefined>;
  /** Like status, but an unknown id rejects with an error that says why ids go missing. */
  require(id: string): Promise<JobStatus>;
  /** Every kept job, newest first. */
  list(): Promise<JobStatus[]>;
  /** Abort a running job (whichever instance runs it); answers its status. A finished job is left as it is. */
  cancel(id: string): Promise<JobStatus>;
  /** Abort every job this process runs for the store and stop listening (session end, shutdown). */
  dispose(): void;
}

export interface JobStoreOptions {
  /** Most jobs kept, running and finished together; default 50. */
  maxJobs?: number;
  now?: () => number;
  /** Where job records live; default a private in-memory store. */
  records?: JobRecords;
  /** Who may see the jobs (a session id, or `identity:<name>`); default a fresh id. */
  scope?: string;
  /** This process's id in the fleet; default "local". */
  instanceId?: string;
  /** Say which instance runs each job (only useful when several share the records). */
  showInstance?: boolean;
  /**
   * The fleet's redactor, on a failed job's downstream text before it is cut (result.ts `quoted`);
   * default none (a store made outside a runtime).
   */
  mask?: (text: string) => string;
  /** Masks the credentials the runtime knows in a failed job's error, before it is bounded and stored. */
  redact?: (value: unknown) => unknown;
  /**
   * Whether the shared records were lost while this process ran (Redis restarted without its
   * data): the running jobs' records are written back then, and an unknown id says it may be lost.
   */
  stateLoss?: Pick<StateLoss, "lostAt" | "onLoss" | "waitForRewrite">;
}

export const DEFAULT_MAX_JOBS = 50;

/** Jobs this process ran, for metrics: running now, and how the others ended since start. */
const counts = { running: 0, succeeded: 0, failed: 0, cancelled: 0 };
export function jobCounts(): Readonly<typeof counts> {
  return { ...counts };
}

function lostError(owner: string): ErrorPayload {
  return {
    code: "UPSTREAM_ERROR",
    message: `the gateway instance '${owner}' that ran this job stopped (no heartbeat); the job's work and result are lost`,
    hint: "Start the job again; it will run on a live instance.",
  };
}

/** `value` as JSON.stringify sees it, parsed back (undefined stays undefined). */
function asJson(value: unknown): unknown {
  // Bytes described as a result's are (binary-value.ts), before a Buffer's toJSON writes them as numbers.
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, written: unknown) {
    const original = this[key];
    return original && typeof original === "object" && isBytes(original) ? bytesDescriptor(original) : written;
  });
  return json === undefined ? undefined : JSON.parse(json);
}

export function createJobStore(options: JobStoreOptions = {}): JobStore {
  const maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
  const now = options.now ?? Date.now;
  const mask = options.mask ?? ((text: string) => text);
  const instanceId = options.instanceId ?? "local";
  const records = options.records ?? createMemoryJobRecords(instanceId);
  const scope = options.scope ?? `store:${nodeCrypto().randomUUID()}`;
  const shared = options.showInstance === true;
  // The work this process runs: only here can it be aborted.
  const running = new Map<string, { controller: AbortController; started: number; status: JobStatus }>();
  let disposed = false;
  // A store with private records forgets its jobs when disposed; shared records outlive it.
  const ownRecords = options.records === undefined;
  // The ids to forget then: those still kept (an id leaves when its record is dropped to make
  // room), so a store that lives as long as the server does not grow by one id per job started.
  const startedIds = new Set<string>();
  /**
   * A failed job's error as kept: masked, then bounded as every error answer is (error-bound.ts),
   * when stored: a status answer repeats it, and shared records (Redis) hold it, as often as asked.
   */
  const storedError = (error: unknown): ErrorPayload => {
    const payload = fromThrown(error).toPayload();
    return boundError(options.redact ? (options.redact(payload) as ErrorPayload) : payload);
  };
  const stopListening = records.onCancelRequest((id) => running.get(id)?.controller.abort(cancelledByOwner()));
  // The shared records were lost: the jobs running here are saved again, so they stay pollable everywhere.
  const stopRewriting = options.stateLoss?.onLoss(() => Promise.all([...running.values()].map((job) => records.save(stored(job.status)))));

  const stored = (status: JobStatus): StoredJob => ({ status: status as unknown as StoredJob["status"], owner: instanceId, scope });

  async function makeRoom(): Promise<void> {
    const jobs = await records.list(scope);
    if (jobs.length < maxJobs) return;
    const finished = jobs.filter((job) => job.status.state !== "running").reverse(); // oldest first
    const drop = finished.slice(0, jobs.length - maxJobs + 1).map((job) => job.status.id);
    if (jobs.length - drop.length < maxJobs) {
      await records.remove(scope, drop);
      for (const id of drop) startedIds.delete(id);
      return;
    }
    throw new RuntimeError(
      "UPSTREAM_ERROR",
      `${jobs.length} jobs are still running, the most this server keeps; wait for one to finish (job_status) before starting another`,
      { running: jobs.length },
      "Wait for a running job to finish (check it with the plugin's job status tool), then start this one again.",
    );
  }

  async function finish(id: string, outcome: { result: unknown } | { error: unknown }): Promise<void> {
    const job = running.get(id);
    if (!job) return;
    running.delete(id);
    counts.running -= 1;
    const status = job.status;
    const ended = now();
    status.finishedAt = new Date(ended).toISOString();
    status.durationMs = ended - job.started;
    if (job.controller.signal.aborted && !("result" in outcome)) {
      status.state = "cancelled";
      status.error = storedError(job.controller.signal.reason ?? outcome.error);
    } else {
      if ("result" in outcome) {
        try {
          const result = unwrapResult(outcome.result, `job '${id}'`, mask);
          // A result that cannot become JSON would break every later status answer (and the
          // shared records): the job fails instead, saying what and where.
          const unsendable = findUnserialisable(result);
          if (unsendable) throw unserialisableError(`job '${id}'${status.kind ? ` (${status.kind})` : ""}`, unsendable);
          // Kept as its JSON, as the shared records (Redis) keep it anyway: the in-memory records
          // copy with structuredClone, which throws on a URL or a function (the save failed and
          // the job stayed running for ever) and turns a class instance into a plain object
          // (its toJSON lost, so a status showed other fields than the job returned).
          status.result = asJson(result);
          status.state = "succeeded";
        } catch (error) {
          outcome = { error };
        }
      }
      if (!("result" in outcome) || status.state !== "succeeded") {
        status.state = "failed";
        status.error = storedError((outcome as { error: unknown }).error);
      }
    }
    counts[status.state === "succeeded" ? "succeeded" : status.state === "cancelled" ? "cancelled" : "failed"] += 1;
    if (!disposed) await records.save(stored(status)).catch(() => undefined);
  }

  /** A running record whose instance is gone is turned into a lost job, once, for every reader. */
  async function resolveLost(job: StoredJob): Promise<JobStatus> {
    const status = job.status as unknown as JobStatus;
    if (status.state !== "running" || running.has(status.id) || (await records.isAlive(job.owner))) return status;
    const lost: JobStatus = { ...status, state: "lost", finishedAt: new Date(now()).toISOString(), error: lostError(job.owner) };
    await records.save({ ...job, status: lost as unknown as StoredJob["status"] }).catch(() => undefined);
    return lost;
  }

  const view = (status: JobStatus): JobStatus => {
    const copy = { ...status };
    if (!shared) delete copy.instance;
    return copy;
  };

  return {
    async start(work, startOptions = {}) {
      await makeRoom();
      // A whole UUID: 8 hex digits (32 bits) met across identities in a fleet's shared records.
      const id = `job_${nodeCrypto().randomUUID()}`;
      const started = now();
      const status: JobStatus = {
        id,
        ...(startOptions.kind ? { kind: startOptions.kind } : {}),
        state: "running",
        startedAt: new Date(started).toISOString(),
        instance: instanceId,
      };
      const controller = new AbortController();
      running.set(id, { controller, started, status });
      counts.running += 1;
      if (ownRecords) startedIds.add(id);
      await records.save(stored(status));
      if (disposed) controller.abort(new Error("the session ended"));
      // Deferred so that a work function that throws synchronously still yields a job id first.
      void Promise.resolve()
        .then(() => {
          // Disposed before it began (the session ended at once): do not start the work at all.
          if (controller.signal.aborted) throw controller.signal.reason;
          return work(controller.signal);
        })
        .then(
          (result) => finish(id, { result }),
          (error: unknown) => finish(id, { error }),
        );
      return id;
    },
    async status(id) {
      const local = running.get(id);
      if (local) return view(local.status);
      const job = await records.load(scope, id);
      return job ? view(await resolveLost(job)) : undefined;
    },
    async require(id) {
      const found = await this.status(id);
      if (found) return found;
      // Redis lost its data a moment ago: a running job's record is on its way back from its instance.
      const rewritten = await options.stateLoss?.waitForRewrite(() => this.status(id));
      if (rewritten) return rewritten;
      const known = (await records.list(scope)).slice(0, 10).map((job) => job.status.id);
      const lostAt = options.stateLoss?.lostAt();
      if (lostAt !== undefined) {
        // Not "expired or a wrong id": the records of jobs that had finished by then went with the state.
        throw new RuntimeError(
          "ARG_VALIDATION_FAILED",
          `no job '${id}' here: the gateway's shared state was lost at ${new Date(lostAt).toISOString()} (Redis restarted without its data, or was flushed), and with it the records of jobs that had finished by then (jobs still running were saved again by their instance), so this job and its result may have been lost with it; else it is from another session or identity, or was evicted after ${maxJobs} newer jobs; list the jobs to see the ids kept`,
          { errors: [{ path: "/jobId", message: "is not a known job id" }], known, stateLostAt: new Date(lostAt).toISOString() },
          "If the job had finished before the shared state was lost, its result is gone: start it again.",
        );
      }
      throw new RuntimeError(
        "ARG_VALIDATION_FAILED",
        `no job '${id}' here: ${shared ? "jobs are kept in the shared store for 7 days" : "jobs live in memory only, so an id from before a server restart"}, from another session or identity, or one evicted after ${maxJobs} newer jobs is gone; list the jobs to see the ids kept`,
        { errors: [{ path: "/jobId", message: "is not a known job id" }], known },
      );
    },
    async list() {
      const jobs = await records.list(scope);
      return Promise.all(jobs.map(async (job) => view(running.get(job.status.id)?.status ?? (await resolveLost(job)))));
    },
    async cancel(id) {
      const local = running.get(id);
      if (local) {
        local.controller.abort(cancelledByOwner());
        // The work may ignore its signal: the job still ends as cancelled now.
        await finish(id, { error: local.controller.signal.reason });
        return view(local.status);
      }
      const job = await records.load(scope, id);
      if (!job) return this.require(id);
      const status = await resolveLost(job);
      if (status.state !== "running") return view(status);
      await records.requestCancel(job.owner, id);
      const cancelled: JobStatus = { ...status, state: "cancelled", finishedAt: new Date(now()).toISOString(), error: cancelledByOwner().toPayload() };
      await records.save({ ...job, status: cancelled as unknown as StoredJob["status"] });
      return view(cancelled);
    },
    dispose() {
      disposed = true;
      stopListening();
      stopRewriting?.();
      for (const job of running.values()) job.controller.abort(new Error("the session ended"));
      if (ownRecords) void records.remove(scope, [...startedIds]);
    },
  };
}

const SESSION_KEY = "agent-tools:jobs:";

/** Where a session's jobs are kept: the shared records and the scope they are listed under. */
export interface JobPlacement {
  records: JobRecords;
  instanceId: string;
  /** Whether other instances read the same records (Redis): job statuses then name their instance. */
  shared: boolean;
  /** Present in team mode: jobs belong to this owner (`identity:<name>`) and outlive the session. */
  scope?: string;
  /** The shared state's loss watch (Redis), so running jobs are saved again after a loss and an unknown id names it. */
  stateLoss?: StateLoss;
}

/** Owner-scoped stores, one per records backend and scope, kept for the process's life. */
const ownerStores = new WeakMap<JobRecords, Map<string, JobStore>>();

/**
 * The job store of one plugin in one session, made on first use. Kept per session (or per
 * identity in team mode, so the same agent sees its jobs through every instance and session),
 * and per plugin so that one plugin's list holds only its own.
 */
export function jobStoreFor(caller: Session, prefix: string, options: JobStoreOptions = {}, placement?: JobPlacement): JobStore {
  const session = caller.jobs ?? caller;
  const key = `${SESSION_KEY}${prefix}`;
  const existing = session.extensions.get(key) as JobStore | undefined;
  if (existing) return existing;
  const where = placement ? { records: placement.records, instanceId: placement.instanceId, showInstance: placement.shared, ...(placement.stateLoss ? { stateLoss: placement.stateLoss } : {}) } : {};
  if (placement?.scope) {
    // An identity's jobs keep running when one of its sessions ends, and stay cancellable.
    const scope = `${placement.scope}:${prefix}`;
    let stores = ownerStores.get(placement.records);
    if (!stores) ownerStores.set(placement.records, (stores = new Map()));
    let store = stores.get(scope);
    if (!store) stores.set(scope, (store = createJobStore({ ...options, ...where, scope })));
    session.extensions.set(key, store);
    return store;
  }
  const scope = `session:${session.id}:${prefix}`;
  const store = createJobStore({ ...options, ...where, scope });
  session.extensions.set(key, store);
  session.disposers.push(async () => {
    store.dispose();
    // A session's jobs die with it: their records go too, so a long-lived process does not keep them.
    if (placement) await placement.records.remove(scope, (await placement.records.list(scope)).map((job) => job.status.id));
  });
  return store;
}
