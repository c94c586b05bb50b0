import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { RuntimeError } from "../errors.js";
import { closeSession, createSession, type Session } from "./session.js";
import { fairVictim } from "./fair-eviction.js";
import { acceptedStateKeys } from "./state-key.js";
import { allowance, identityKey, sameIdentity, type Identity } from "./access.js";
import { durationText } from "../duration-text.js";
import { START_NEW } from "./workspace-argument.js";

/**
 * Workspaces: the text layer's state (files, variables, working folder) for clients that have no
 * session (MCP 2026-07-28 is stateless). `agent_tools_exec` answers with a `workspace` handle and
 * accepts it back. A handle is `ws1.<id>.<mac>`: the MAC is an HMAC-SHA256, under a key the
 * runtime holds, over the id and the caller's identity, so a handle cannot be made up, and one
 * issued to an identity is refused to another. The handle carries no state; the record (who owns
 * it, when it was last used) is in a WorkspaceStore, and the sandbox itself in this process.
 *
 * The store is an interface so that a gateway can keep records in Redis and share the key across
 * instances: a handle minted on one instance then verifies on any other. In a fleet the record
 * names the instance whose process holds the shell, and only that instance serves it: another one
 * answers WORKSPACE_UNAVAILABLE (retry: the holder lives, the request was misrouted) or
 * WORKSPACE_LOST (the holder died). It never opens an empty shell under the old handle, which
 * would answer "ok" with the files silently gone.
 */

export interface WorkspaceRecord {
  id: string;
  /** The identity the handle is bound to ("" when the transport knows none). */
  owner: string;
  /**
   * The whole identity that created it (access.ts identityKey): a caller of the same name with
   * other rights (a JWT reissued with fewer plugins or without the write scope) is refused, so the
   * sandbox never runs with rights the caller does not have. Absent on records of older versions.
   */
  rights?: string;
  createdAt: number;
  lastUsed: number;
  /** The gateway instance whose process holds the sandbox (team mode). */
  instance?: string;
}

/** Where workspace records live. Every method may be async (a shared store is remote). */
export interface WorkspaceStore {
  get(id: string): Promise<WorkspaceRecord | undefined> | WorkspaceRecord | undefined;
  put(record: WorkspaceRecord): Promise<void> | void;
  delete(id: string): Promise<void> | void;
  /** Records idle since before `cutoff` (for the sweep). */
  idleSince(cutoff: number): Promise<WorkspaceRecord[]> | WorkspaceRecord[];
}

class MemoryWorkspaceStore implements WorkspaceStore {
  private readonly records = new Map<string, WorkspaceRecord>();
  get(id: string): WorkspaceRecord | undefined {
    return this.records.get(id);
  }
  put(record: WorkspaceRecord): void {
    this.records.set(record.id, { ...record });
  }
  delete(id: string): void {
    this.records.delete(id);
  }
  idleSince(cutoff: number): WorkspaceRecord[] {
    return [...this.records.values()].filter((r) => r.lastUsed < cutoff);
  }
}

export interface WorkspacesOptions {
  /** The HMAC key (at least 32 bytes); absent, the process's keys (state-key.ts: the current one signs, earlier ones it adopted away from still verify). */
  key?: Buffer;
  store?: WorkspaceStore;
  /** A workspace unused this long is closed and its handle refused. Default 30 minutes. */
  idleMs?: number;
  /**
   * At most this many workspaces with a sandbox in this process (default 256). Past it, room is
   * made by closing an idle workspace (no call in flight) of the owner holding the most, its least
   * recently used first: a caller that opens many workspaces displaces its own, not another's.
   */
  maxLive?: number;
  now?: () => number;
  /** Told when a sweep could not read the store (Redis away); the next sweep tries again. */
  onSweepFailed?: (error: Error) => void;
  /**
   * Team mode: this instance's name and a liveness check of the others (the shared state's
   * heartbeats). A workspace's id then names the instance that holds its shell, which a balancer
   * can route on (`Mcp-Param-Workspace`), and a handle whose instance died answers WORKSPACE_LOST.
   */
  fleet?: {
    instance: string;
    /** Whether another instance lives, settled by its heartbeat (state/types.ts Heartbeats.settle): may wait up to about one heartbeat TTL. */
    settle(instance: string): Promise<"alive" | "dead">;
    /**
     * After the shared state was lost (Redis restarted without its data) the instances holding
     * shells write their records back: this waits for `read` to find one, for up to about one
     * heartbeat TTL, when the loss is recent (state/types.ts StateLoss.waitForRewrite); undefined at once otherwise.
     */
    waitForRewrite?<T>(read: () => Promise<T | undefined | null>): Promise<T | undefined>;
    /**
     * Whether the shared state was lost, and if so write back what this instance owns, heartbeat
     * first (state/types.ts StateLoss.check): run by a holder that finds its own record missing, so
     * the fleet sees it alive and its other records back before it serves the call.
     */
    checkLoss?(): Promise<unknown>;
  };
}

export interface OpenedWorkspace {
  handle: string;
  session: Session;
  /** The call in this workspace ended: until then it is never closed (to make room or as idle). */
  release: () => Promise<void>;
  /** true when the handle was new in this call. */
  created: boolean;
  /** Said in the answer when the sandbox had to be made again here (a shared store without a fleet: one process that lost its sandboxes). */
  note?: string;
}

const PREFIX = "ws1";

/** The note of a workspace made for a caller that holds others: it most likely forgot to pass one. */
export const NONE_PASSED = "new workspace; none was passed — pass `workspace` to keep files across calls";

const DEFAULT_WORKSPACE_IDLE_MS = 30 * 60_000;
/** How long a caller should wait before retrying a WORKSPACE_UNAVAILABLE answer. */
const WORKSPACE_RETRY_MS = 1000;
export const DEFAULT_MAX_LIVE_WORKSPACES = 256;
/** Ids of workspaces closed to make room, remembered so their handle is told so (the oldest are forgotten first). */
const EVICTED_MEMORY = 4096;

/**
 * This run of the process, in the ids it issues outside a fleet (`<run>~<uuid>`, as a fleet's are
 * `<instance>~<uuid>`): a handle whose record is missing and whose run is not this one was issued
 * before the server restarted (with the same AGENT_TOOLS_STATE_KEY), so it is told as lost with the
 * restart, not as expired or forged.
 */
const THIS_RUN = randomUUID().slice(0, 8);

/** A workspace whose sandbox this process holds. */
interface LiveWorkspace {
  session: Session;
  owner: string;
  /** Calls running in it now. */
  calls: number;
  /** When a call last opened it here: tells a record the shared state lost from one that sat idle. */
  lastUsed: number;
  /** Its record's creation time, to write the record back when the shared state lost it. */
  createdAt: number;
}

export class Workspaces {
  /** The current key first (it signs), then earlier ones that still verify. */
  private readonly keys: () => Buffer[];
  private readonly store: WorkspaceStore;
  private readonly idleMs: number;
  private readonly maxLive: number;
  private readonly now: () => number;
  private readonly fleet: WorkspacesOptions["fleet"];
  /** Sandboxes of this process, by workspace id, in least-recently-used order. */
  private readonly live = new Map<string, LiveWorkspace>();
  /** Workspaces closed to make room (id → why), so that their handle answers it. */
  private readonly evicted = new Map<string, "count" | "memory">();
  private readonly sweeper: NodeJS.Timeout;
  private readonly onSweepFailed: WorkspacesOptions["onSweepFailed"];
  /** Whether the last background sweep failed: an outage is told once, not at every sweep. */
  private sweepFailing = false;

  constructor(options: WorkspacesOptions = {}) {
    if (options.key && options.key.length < 32) throw new Error("the workspace key must be at least 32 bytes");
    const fixed = options.key;
    this.keys = fixed ? () => [fixed] : () => acceptedStateKeys();
    this.store = options.store ?? new MemoryWorkspaceStore();
    this.idleMs = options.idleMs ?? DEFAULT_WORKSPACE_IDLE_MS;
    this.maxLive = options.maxLive ?? DEFAULT_MAX_LIVE_WORKSPACES;
    this.now = options.now ?? Date.now;
    this.fleet = options.fleet;
    this.onSweepFailed = options.onSweepFailed;
    this.sweeper = setInterval(() => void this.sweepInBackground(), Math.max(1_000, Math.min(60_000, Math.floor(this.idleMs / 4))));
    this.sweeper.unref();
  }

  /**
   * A new workspace bound to `owner`. When the same identity already holds a workspace here that
   * is still usable, the caller most likely forgot its handle (a model that dropped `workspace`
   * finds its files gone with no reason given): the answer's note says so.
   */
  async create(owner: string, identity?: Identity): Promise<OpenedWorkspace> {
    // In a fleet the id starts with the instance's name ("gw-a~…"), as it is: a balancer routes on
    // it. The name's characters are checked at start (state/types.ts instanceIdProblem).
    const id = `${this.fleet ? this.fleet.instance : THIS_RUN}~${randomUUID()}`;
    const at = this.now();
    const forgotten = this.holdsUsable(owner, identity, at);
    await this.store.put({ id, owner, rights: identityKey(identity), createdAt: at, lastUsed: at, ...(this.fleet ? { instance: this.fleet.instance } : {}) });
    return { handle: this.sign(id, owner), ...(await this.sandbox(id, owner, at, identity)), created: true, ...(forgotten ? { note: NONE_PASSED } : {}) };
  }

  /** Whether this process holds a workspace of `owner` with `identity`'s rights that a call used within the idle limit. */
  private holdsUsable(owner: string, identity: Identity | undefined, at: number): boolean {
    for (const [id, live] of this.live) if (live.owner === owner && sameIdentity(live.session.identity, identity) && this.recentlyUsedHere(id, at)) return true;
    return false;
  }

  /**
   * The workspace of `handle` for `owner`, touched. Throws WORKSPACE_INVALID for a handle this
   * server did not issue to this identity, WORKSPACE_EXPIRED for one that sat idle too long.
   */
  async open(handle: string, owner: string, identity?: Identity): Promise<OpenedWorkspace> {
    const id = this.verify(handle, owner);
    const at = this.now();
    const record = (await this.store.get(id)) ?? (await this.rewrittenRecord(id, at));
    const evicted = record ? undefined : this.evicted.get(id);
    if (evicted === "memory") {
      throw new RuntimeError(
        "WORKSPACE_EXPIRED",
        `workspace '${handle.slice(0, 16)}…' was closed to free memory (the files of all sandboxes together filled their budget, AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB, and it was the least recently used idle one of the caller whose sandboxes held the most); its files are gone; ${START_NEW}`,
        { reason: "closed to free memory" },
      );
    }
    if (evicted === "count") {
      throw new RuntimeError(
        "WORKSPACE_EXPIRED",
        `workspace '${handle.slice(0, 16)}…' was closed to make room (this server holds at most ${this.maxLive} workspaces, AGENT_TOOLS_HTTP_MAX_WORKSPACES, and it was the least recently used idle one of the caller holding the most); its files are gone; ${START_NEW}`,
        { reason: "closed to make room", maxWorkspaces: this.maxLive },
      );
    }
    if (!record || at - record.lastUsed > this.idleMs) {
      if (record) await this.forget(id);
      if (!record && !this.fleet) this.refuseFromEarlierRun(handle, id);
      if (!record && this.fleet) {
        // In a fleet a missing record is also what Redis restarting without its data leaves, which
        // this instance cannot tell from an idle one it did not hold: both are named.
        throw new RuntimeError(
          "WORKSPACE_EXPIRED",
          `workspace '${handle.slice(0, 16)}…' is not known to the gateway's shared state: it expired after ${durationText(this.idleMs)} unused, or its record was lost with the shared state (Redis restarted without its data); either way its files are not reachable any more; ${START_NEW}`,
          { idleMinutes: Math.round(this.idleMs / 60_000), idleMs: this.idleMs, reason: "expired or shared state lost" },
        );
      }
      throw new RuntimeError("WORKSPACE_EXPIRED", `workspace '${handle.slice(0, 16)}…' expired after ${durationText(this.idleMs)} unused (its files are gone); ${START_NEW}`, { idleMinutes: Math.round(this.idleMs / 60_000), idleMs: this.idleMs });
    }
    this.refuseOtherRights(handle, record, identity);
    const known = this.live.has(id);
    if (!known && this.fleet && record.instance) await this.refuseForeign(handle, id, record.instance, this.fleet);
    await this.store.put({ ...record, lastUsed: at });
    return { handle, ...(await this.sandbox(id, owner, record.createdAt, identity)), created: false, ...(known ? {} : { note: "this workspace was opened again on this server instance: files and variables from before are not here" }) };
  }

  /**
   * A handle whose record is gone and whose id names another run of this server (outside a fleet):
   * the process that issued it stopped, and its shells with it. WORKSPACE_LOST, as a fleet says of
   * a restarted instance; ids of older versions (a bare uuid) name no run and read as expired.
   */
  private refuseFromEarlierRun(handle: string, id: string): void {
    const run = id.includes("~") ? id.slice(0, id.indexOf("~")) : undefined;
    if (run === undefined || run === THIS_RUN) return;
    throw new RuntimeError(
      "WORKSPACE_LOST",
      `workspace '${handle.slice(0, 16)}…' was opened before this server restarted: its shell's files, variables and working folder went with the earlier process (jobs, tokens and data written through plugins are not lost); ${START_NEW}`,
      { reason: "server restarted", lost: ["files", "variables", "working folder"] },
    );
  }

  /** Whether this process holds the sandbox of `id` and a call opened it within the idle limit. */
  private recentlyUsedHere(id: string, at: number): boolean {
    const live = this.live.get(id);
    return live !== undefined && at - live.lastUsed <= this.idleMs;
  }

  /**
   * The record of `id` when the shared state lost it (Redis restarted without its data, or its keys
   * were deleted) and it is written back: by this process when it holds the sandbox and a call used
   * it within the idle limit (not idleness: the sweep removes only records idle past it), else by
   * the instance holding it, waited for when the loss is recent. Undefined when it is really gone.
   */
  private async rewrittenRecord(id: string, at: number): Promise<WorkspaceRecord | undefined> {
    if (this.evicted.has(id)) return undefined;
    if (this.recentlyUsedHere(id, at)) {
      // Its own record missing is what a loss leaves: recover all of it (heartbeat, marker, every record), not this record alone.
      await this.fleet?.checkLoss?.();
      const record = this.liveRecord(id, this.live.get(id)!);
      await this.store.put(record);
      return record;
    }
    return this.fleet?.waitForRewrite?.(async () => (await this.store.get(id)) ?? undefined);
  }

  /** The record of a sandbox this process holds, as it was put: the rights are those of the identity that opened it. */
  private liveRecord(id: string, live: LiveWorkspace): WorkspaceRecord {
    return { id, owner: live.owner, rights: identityKey(live.session.identity), createdAt: live.createdAt, lastUsed: live.lastUsed, ...(this.fleet ? { instance: this.fleet.instance } : {}) };
  }

  /**
   * Write back the records of the sandboxes this process holds and used within the idle limit: the
   * shared state lost them (state/types.ts StateLoss.onLoss). Other instances then find the
   * workspace held by a live instance instead of taking it for expired or lost.
   */
  async rewriteRecords(): Promise<void> {
    const at = this.now();
    const held = [...this.live].filter(([id]) => this.recentlyUsedHere(id, at));
    await Promise.all(held.map(([id, live]) => this.store.put(this.liveRecord(id, live))));
  }

  /**
   * A workspace serves only the whole identity that created it: its sandbox session carries that
   * identity's rights, so another token of the same name with fewer rights would act with them.
   * Refused, not re-scoped: the files the wider identity left there are not the narrower one's.
   */
  private refuseOtherRights(handle: string, record: WorkspaceRecord, identity: Identity | undefined): void {
    const live = this.live.get(record.id);
    const differs = record.rights !== undefined ? record.rights !== identityKey(identity) : live !== undefined && !sameIdentity(live.session.identity, identity);
    if (!differs) return;
    const yours = identity ? `; this request's credentials: ${allowance(identity).text}` : "";
    throw new RuntimeError(
      "WORKSPACE_INVALID",
      `workspace '${handle.slice(0, 16)}…' was opened with other rights than this request's (a token of the same name with other plugins, write scope or rate)${yours}; a workspace serves only the credentials that opened it, so nothing was run and its files are left as they were; ${START_NEW}`,
      { reason: "opened with other rights" },
    );
  }

  /**
   * A fleet's workspace whose shell this process does not hold: never reopened here. The holder
   * restarted (it is this instance) or died: WORKSPACE_LOST. It lives: the balancer sent the
   * request here because it could not reach the holder or does not route on the handle, so
   * WORKSPACE_UNAVAILABLE, to retry. Right after a crash the holder's heartbeat is still there, so
   * the verdict waits for its next beat or its expiry instead of guessing.
   */
  private async refuseForeign(handle: string, id: string, holder: string, fleet: NonNullable<WorkspacesOptions["fleet"]>): Promise<never> {
    const shown = `workspace '${handle.slice(0, 24)}…'`;
    if (holder === fleet.instance || (await fleet.settle(holder)) === "dead") {
      await this.forget(id);
      throw new RuntimeError(
        "WORKSPACE_LOST",
        `${shown} lived on gateway instance '${holder}', which ${holder === fleet.instance ? "restarted" : "stopped"}: its shell's files, variables and working folder are lost (jobs, tokens and data written through plugins are not); ${START_NEW}`,
        { instance: holder, lost: ["files", "variables", "working folder"] },
      );
    }
    throw new RuntimeError(
      "WORKSPACE_UNAVAILABLE",
      `${shown} is held by gateway instance '${holder}', which is running, but this request reached instance '${fleet.instance}' (the load balancer could not reach '${holder}' just now, or does not route on the Mcp-Param-Workspace header); nothing was run and the workspace's files are intact on '${holder}'`,
      { instance: holder, answeredBy: fleet.instance, retryAfterMs: WORKSPACE_RETRY_MS },
    );
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.live.values()];
    this.live.clear();
    await Promise.allSettled(sessions.map((w) => closeSession(w.session)));
  }

  /** Close workspaces idle past the limit (their sandboxes and records). */
  async sweep(): Promise<void> {
    const stale = await this.store.idleSince(this.now() - this.idleMs);
    // A call running longer than the idle limit keeps its workspace: it is in use.
    await Promise.allSettled(stale.filter((r) => !this.live.get(r.id)?.calls).map((r) => this.forget(r.id)));
  }

  /** The timer's sweep: its failure (the store unreachable) is told once per outage, and the next sweep retries. */
  private async sweepInBackground(): Promise<void> {
    try {
      await this.sweep();
      this.sweepFailing = false;
    } catch (error) {
      if (this.sweepFailing) return;
      this.sweepFailing = true;
      this.onSweepFailed?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  get liveCount(): number {
    return this.live.size;
  }

  private sign(id: string, owner: string): string {
    return `${PREFIX}.${id}.${this.mac(this.keys()[0]!, id, owner)}`;
  }

  private mac(key: Buffer, id: string, owner: string): string {
    return createHmac("sha256", key).update(`${PREFIX}\n${id}\n${owner}`).digest("base64url");
  }

  /** Whether `mac` signs `id` for `owner` under one of the keys (constant-time per key). */
  private signedByUs(id: string, owner: string, mac: string): boolean {
    const given = Buffer.from(mac);
    return this.keys().some((key) => {
      const expected = Buffer.from(this.mac(key, id, owner));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private verify(handle: string, owner: string): string {
    const parts = typeof handle === "string" ? handle.split(".") : [];
    const [prefix, id, mac] = parts;
    const invalid = (why: string): RuntimeError => new RuntimeError("WORKSPACE_INVALID", `'workspace' ${why}; ${START_NEW}`, {});
    if (parts.length !== 3 || prefix !== PREFIX || !id || !mac) throw invalid("is not a workspace handle (they look like ws1.<id>.<signature>)");
    if (!this.signedByUs(id, owner, mac)) {
      // A handle carries no key id, so a fleet cannot tell a foreign one from one signed with a key
      // the fleet lost (Redis restarted without its data and a new key was made): both are named.
      throw invalid(
        this.fleet
          ? "was not issued by this gateway to this caller, or was signed before the gateway's shared state was lost (Redis restarted without its data, and the fleet signs with a new key since): its signature matches none of this instance's keys, and either way it cannot be used"
          : "was not issued by this server to this caller, or was issued before the server restarted with another signing key (without AGENT_TOOLS_STATE_KEY every start makes a new one, so handles do not outlive the process): its signature does not match, and either way it cannot be used (a restart took its files with it)",
      );
    }
    return id;
  }

  /** The sandbox of `id`, most recently used now and with one more call in it, and that call's release. */
  private async sandbox(id: string, owner: string, createdAt: number, identity?: Identity): Promise<{ session: Session; release: () => Promise<void> }> {
    let workspace = this.live.get(id);
    if (workspace) this.live.delete(id);
    else workspace = { session: createSession(`ws-${id}`, identity), owner, calls: 0, lastUsed: 0, createdAt };
    workspace.lastUsed = this.now();
    this.live.set(id, workspace);
    workspace.calls += 1;
    const inUse = workspace;
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      inUse.calls -= 1;
      // Idle time counts from the end of the last call: a call that ran past the idle limit must
      // not leave its workspace expired the moment it answers.
      await this.touch(id, inUse);
      // Over the cap while every candidate was busy: room is made now that one is idle.
      await this.makeRoom();
    };
    await this.makeRoom();
    return { session: workspace.session, release };
  }

  /**
   * Close idle workspaces until at most `maxLive` are live: of the owner holding the most, its
   * least recently used idle one first (then the next owner's, when all of the first are busy).
   * When every workspace has a call in flight the cap is passed until one ends.
   */
  private async makeRoom(): Promise<void> {
    while (this.live.size > this.maxLive) {
      // `live` is in least-recently-used order: of the owner's idle ones, the first met goes.
      const victim = this.victim(() => 1);
      if (victim === undefined) return;
      await this.evict(victim, "count");
    }
  }

  /**
   * The sandboxes' memory budget is spent (text/memory-budget.ts): close idle workspaces, by the
   * rule of makeRoom with bytes for workspaces (the owner whose sandboxes hold the most bytes
   * first, its least recently used idle one that holds any), until `neededBytes` were freed or
   * none is idle. A workspace with a call in flight, the writer's own included, is never closed.
   */
  async freeBytes(neededBytes: number, bytesOf: (session: Session) => number): Promise<number> {
    let freed = 0;
    while (freed < neededBytes) {
      const victim = this.victim((w) => bytesOf(w.session));
      if (victim === undefined) break;
      freed += bytesOf(this.live.get(victim)!.session);
      await this.evict(victim, "memory");
    }
    return freed;
  }

  /**
   * The workspace to close: the least recently used idle one of the owner whose live workspaces
   * weigh the most together (fair-eviction.ts; `live` is in least-recently-used order).
   */
  private victim(weight: (workspace: LiveWorkspace) => number): string | undefined {
    return fairVictim(this.live, { owner: ([, w]) => w.owner, idle: ([, w]) => w.calls === 0, weight: ([, w]) => weight(w) })?.[0];
  }

  private async evict(id: string, why: "count" | "memory"): Promise<void> {
    this.evicted.set(id, why);
    if (this.evicted.size > EVICTED_MEMORY) this.evicted.delete(this.evicted.keys().next().value as string);
    await this.forget(id);
  }

  /** Mark `id` used now, here and in its record (when the store still has it: a closed one stays closed). */
  private async touch(id: string, workspace: LiveWorkspace): Promise<void> {
    const at = this.now();
    workspace.lastUsed = at;
    const record = await this.store.get(id);
    if (record) await this.store.put({ ...record, lastUsed: Math.max(record.lastUsed, at) });
  }

  private async forget(id: string): Promise<void> {
    const workspace = this.live.get(id);
    this.live.delete(id);
    await this.store.delete(id);
    if (workspace) await closeSession(workspace.session);
  }
}
