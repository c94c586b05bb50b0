import { nodeCrypto } from "../node-crypto.js";
import type { Identity } from "./access.js";

/**
 * Per-session state. stdio has one session; HTTP has one per Mcp-Session-Id. Adapters and their
 * connections are shared across sessions; what is here is not.
 */

export interface LoopRecord {
  code: string;
  count: number;
  /** When the last counted failure happened (the loop breaker's clock). */
  lastAt: number;
  /** The plugin's catalog version (catalog.ts `version`) when it was counted: a changed catalog starts the count again. */
  catalog?: number;
  /** The HTTP status of the last counted failure, when it had one (a service's refusal): LOOP_DETECTED names it. */
  status?: number;
  /** The plugin the failed call reached: a write that succeeds there clears its service refusals (loop-breaker.ts). */
  plugin?: string;
}

export interface Session {
  readonly id: string;
  /** Failing calls by canonical key; cleared when the same call succeeds. */
  readonly loopMemory: Map<string, LoopRecord>;
  /** Free slot for the layers above (the text layer keeps its sandbox here). */
  readonly extensions: Map<string, unknown>;
  /** Run when the session ends (HTTP DELETE, idle expiry, shutdown): layers above free what they keep in `extensions`. */
  readonly disposers: Array<() => unknown>;
  /** Who opened the session on a team gateway; undefined where everyone may do everything (stdio, one token). */
  readonly identity?: Identity;
  /**
   * The session whose jobs this one's calls start, list and cancel, when not its own: a modern
   * workspace's sandbox session names its caller's session, so jobs are the same from
   * agent_tools_exec and from the typed tools, as over stdio, and outlive the workspace.
   */
  jobs?: Session;
}

export function createSession(id: string = nodeCrypto().randomUUID(), identity?: Identity): Session {
  return { id, loopMemory: new Map(), extensions: new Map(), disposers: [], ...(identity ? { identity } : {}) };
}

/** End a session: every disposer runs once, failures are swallowed (a session end must never throw). */
export async function closeSession(session: Session): Promise<void> {
  const disposers = session.disposers.splice(0);
  await Promise.allSettled(disposers.map(async (dispose) => dispose()));
  session.extensions.clear();
  session.loopMemory.clear();
}
