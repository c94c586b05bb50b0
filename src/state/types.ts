import { RuntimeError } from "../errors.js";
import type { CatalogStore } from "../runtime/catalog-cache/store.js";
import type { WorkspaceRecord } from "../runtime/workspaces.js";

/**
 * State that several runtime instances behind one load balancer must share, behind one interface
 * with two backends: memory (one process, the default) and Redis (`AGENT_TOOLS_REDIS_URL` or the
 * config's `team.redis`). What is per session or workspace (the sandbox, the loop breaker's memory)
 * is not here: it stays in the instance that owns the session.
 */

/** A job's record as the store keeps it: the job's status and which instance runs its work. */
export interface StoredJob {
  /** The job's status (runtime/jobs.ts JobStatus), kept as plain JSON. */
  status: { id: string; state: string; startedAt: string } & Record<string, unknown>;
  /** The instance that runs the work: only it can abort the work, and its heartbeat says whether it lives. */
  owner: string;
  /** Who may see the job (a session id, or `identity:<name>` in team mode). */
  scope: string;
}

export interface JobRecords {
  save(job: StoredJob): Promise<void>;
  load(scope: string, id: string): Promise<StoredJob | undefined>;
  /** Every kept job of the scope, newest first. */
  list(scope: string): Promise<StoredJob[]>;
  remove(scope: string, ids: string[]): Promise<void>;
  /** Ask the job's owner to abort its work (it may be another instance). */
  requestCancel(owner: string, id: string): Promise<void>;
  /** Called on the owner when some instance asked to cancel one of its jobs. Returns an unsubscribe. */
  onCancelRequest(listener: (id: string) => void): () => void;
  /** Whether the instance still sends heartbeats. */
  isAlive(owner: string): Promise<boolean>;
}

export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /**
   * Set `key` only when it holds nothing (Redis SET NX): true when this call set it. With `ttlMs`
   * the value expires then. What one instance claims this way no other can claim too.
   */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
}

export interface Locks {
  /**
   * Run `work` while holding the named lock, across every instance that shares the backend.
   * The lock expires after `ttlMs` (a crashed holder cannot keep it); a caller waits at most
   * `waitMs` for it, then fails with an error that names the lock.
   */
  withLock<T>(name: string, work: () => Promise<T>, options?: { ttlMs?: number; waitMs?: number }): Promise<T>;
}

export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

export interface Counters {
  /** Count one hit of `key` in a fixed window of `windowMs`. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
}

/** One line of the audit log: a call that changes data (or tried to). */
export interface AuditEntry {
  /** Unique per call, so a reader can check nothing was written twice. */
  id: string;
  at: string;
  identity: string;
  session: string;
  instance: string;
  operation: string;
  plugin: string;
  tool?: string;
  outcome: string;
  /** Who confirmed the write: the human (a confirmation form), the model (`confirm: true`), or "not needed" (the plugin asks none). Absent for a write refused at or before the gate. */
  confirmedBy?: "user" | "model" | "not needed";
  durationMs: number;
  /** The arguments' shape with every value replaced (keys kept, values redacted). */
  arguments?: unknown;
}

export interface AuditLog {
  /** Where entries go, for logs and `agent-tools audit` ("file /path" or "redis stream key"). */
  readonly where: string;
  append(entry: AuditEntry): Promise<void>;
  /** The last `limit` entries, oldest first. */
  tail(limit: number): Promise<AuditEntry[]>;
  /** Call `onEntry` for each entry appended after the call, until the signal aborts. */
  follow(onEntry: (entry: AuditEntry) => void, signal: AbortSignal): Promise<void>;
}

/** Fleet-wide messages (Redis pub/sub; in memory: this process only). A publisher's own listeners hear it too. */
export interface PubSub {
  publish(topic: string, message: string): Promise<void>;
  /** Returns an unsubscribe. */
  subscribe(topic: string, listener: (message: string) => void): () => void;
}

/** A modern client's workspace record as the shared store keeps it: runtime/workspaces.ts's own, with the instance that holds its shell. */
export type SharedWorkspaceRecord = WorkspaceRecord;

/** Workspace records every instance reads: a handle made on one instance is known on all. */
export interface WorkspaceRecords {
  get(id: string): Promise<SharedWorkspaceRecord | undefined>;
  put(record: SharedWorkspaceRecord): Promise<void>;
  delete(id: string): Promise<void>;
  idleSince(cutoff: number): Promise<SharedWorkspaceRecord[]>;
}

/**
 * Instance heartbeats (Redis). A heartbeat still present may belong to an instance that died less
 * than one TTL ago, so "is it alive?" is answered by waiting for the evidence: the next beat
 * (alive) or the key's expiry (dead), at most about one TTL.
 */
export interface Heartbeats {
  /** Settle whether `instance` lives: resolves once it beats again or its heartbeat has expired. */
  settle(instance: string): Promise<"alive" | "dead">;
}

/**
 * Whether the shared state was lost (Redis restarted without its data, or flushed) while this
 * instance ran (state/redis-state-loss.ts). Heartbeats and records go with it while their owners
 * live: a reader that finds one missing asks here before taking the owner for dead.
 */
export interface StateLoss {
  /** When this instance last learned the shared state was lost (ms since the epoch); undefined: not since it started. */
  lostAt(): number | undefined;
  /** Check now (one GET); true when the state was lost since the last check (the heartbeat and the listeners' records are written back first). */
  check(): Promise<boolean>;
  /** Called each time this instance learns of a loss, to write back what it owns. Returns the unsubscribe. */
  onLoss(listener: () => unknown): () => void;
  /**
   * What a live owner writes back after a loss: when the state was lost just now or within one
   * heartbeat TTL (this instance saw it, or the loss marker was set that recently: an instance
   * started on a Redis emptied a moment ago cannot rule a loss out), `read` is asked again every 100 ms for up to one TTL until it answers a value;
   * undefined at once when there was no recent loss (the thing is really gone), or after the wait.
   */
  waitForRewrite<T>(read: () => Promise<T | undefined | null>): Promise<T | undefined>;
}

export interface SharedState {
  readonly backend: "memory" | "redis";
  /** This process's id in the fleet (heartbeats, job owners, audit lines). */
  readonly instanceId: string;
  readonly jobs: JobRecords;
  readonly kv: KeyValue;
  readonly locks: Locks;
  readonly counters: Counters;
  readonly pubsub: PubSub;
  readonly audit: AuditLog | undefined;
  /** Plugin catalogs shared by the fleet (Redis): one instance's listing serves every other's cold start. */
  readonly catalogs?: CatalogStore;
  /** Workspace records shared by the fleet (Redis); absent in memory (the runtime's own store serves). */
  readonly workspaces?: WorkspaceRecords;
  /** Heartbeats of the fleet's instances (Redis); absent in memory (one process, always alive). */
  readonly heartbeats?: Heartbeats;
  /** Whether the shared state was lost while this instance ran (Redis); absent in memory (it cannot be lost apart from the process). */
  readonly stateLoss?: StateLoss;
  /** Whether the backend answers (readiness). */
  ping(): Promise<boolean>;
  /**
   * Call `listener` each time the connection to a remote backend is back after an outage (Redis:
   * the backend may have restarted without its data). Returns the unsubscribe; absent in memory.
   */
  onReconnect?(listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * The shared state failed a request (Redis unreachable, a lock held too long). A RuntimeError, so
 * the client gets a facade error with a hint (retry shortly) rather than a JSON-RPC internal error.
 */
export class SharedStateError extends RuntimeError {
  constructor(message: string, hint = "The gateway's shared state did not answer this request. Retry in a few seconds; if it keeps failing, tell the user the gateway's operator should check its Redis.") {
    super("UPSTREAM_ERROR", message, undefined, hint);
    this.name = "SharedStateError";
  }
}

/** How long an instance counts as alive after its last heartbeat, unless `team.heartbeatTtlMs` says otherwise. */
export const DEFAULT_HEARTBEAT_TTL_MS = 6000;

/** How often an instance beats (a third of the TTL, so two beats may be missed), and checks what it checks at that pace. */
export function heartbeatEveryMs(ttlMs = DEFAULT_HEARTBEAT_TTL_MS): number {
  return Math.max(200, Math.floor(ttlMs / 3));
}

/** What an instance id may hold: it is written into workspace handles (`ws1.<id>~…`) and matched by the balancer's rules. */
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Why `id` cannot name an instance, or undefined. A workspace handle is `ws1.<instance>~<id>.<mac>`
 * and the README's HAProxy rule matches `.<instance>~` in it: a '.' or '~' in the name would break
 * the handle, and rewriting it (gw-c.dc1 → gw-c-dc1) would make the rule never match. Refused at
 * start instead, naming the allowed set.
 */
export function instanceIdProblem(id: string, setting = "AGENT_TOOLS_INSTANCE_ID"): string | undefined {
  if (INSTANCE_ID.test(id)) return undefined;
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  const what = id.length > 64 ? `it is ${id.length} characters long` : `it holds ${[...new Set(id.replace(/[A-Za-z0-9_-]/g, ""))].map((c) => `'${c}'`).join(", ")}`;
  return `${setting} '${shown}' cannot name an instance: ${what}. Use 1 to 64 letters, digits, '-' and '_' (e.g. gw-c-dc1): the name goes into workspace handles, where the balancer's use-server rules match it, and must be the balancer's server name too`;
}

/**
 * A fresh instance id (`i-` and 8 hex digits), for a process its operator did not name. It only has
 * to differ between live instances and is no secret (it shows in workspace handles), and it is made
 * at every start: Math.random (seeded per process from the OS) rather than node:crypto, which a
 * start does not load (node-crypto.ts).
 */
export function newInstanceId(): string {
  return `i-${Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, "0")}`;
}
