import { RuntimeError, type ErrorCode } from "../errors.js";
import type { Session } from "./session.js";
import { retryCannotFix } from "../adapters/shared/upstream-status.js";

/**
 * The loop breaker stops loops, not retries. It counts identical failures of the kind a retry
 * cannot fix (the arguments fail the schema, the tool does not exist, confirmation is missing…)
 * within a time window; from the third identical attempt inside the window the call is answered
 * LOOP_DETECTED without running. Upstream failures (UPSTREAM_ERROR, UPSTREAM_TIMEOUT) are not
 * counted: a service that failed twice may well answer the third time. Except a service's refusal
 * (an HTTP 4xx but 408, 425, 429 and a rate-limited 403: upstream-status.ts retryCannotFix): it is
 * working, and the same request gets the same "task 999 does not exist". When the window has
 * passed since the last real failure, the call runs again. A success clears its record. So does
 * a change of the plugin's catalog (a tool added or renamed, a schema changed) for the failures
 * that catalog decided (UNKNOWN_TOOL, ARG_VALIDATION_FAILED): the same call may now pass. And a
 * write that succeeded (a tool not known read-only, or a skill that ran one) clears the service
 * refusals counted for its plugin: "item SKU-0900 not found" twice, then add_item SKU-0900, and
 * the same get_item is no longer a retry that cannot succeed; the write changed the answer.
 * A failure whose cause is a host-side file read again on every call (an OAuth token store: the
 * user rewrites it between calls) is not counted either: its error says `hostFixable`, and the
 * unchanged retry after the fix is exactly what its hint asks for.
 *
 * The success path stays cheap: the canonical key (sorted JSON of the call) is computed only
 * when the session has failures on record, or when a call fails.
 */

const LOOP_THRESHOLD = 3;
const LOOP_WINDOW_MS = 60_000;
const MEMORY_LIMIT = 500;

/** The failures a retry of the same call cannot fix: only these count. */
const RETRY_CANNOT_FIX: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "ARG_VALIDATION_FAILED",
  "MISSING_TOOL_NAME",
  "UNKNOWN_TOOL",
  "UNKNOWN_SKILL",
  "UNKNOWN_PLUGIN",
  "CONFIRM_REQUIRED",
  "NOT_CONFIGURED",
  // The same request gets the same oversized answer: only asking for less helps.
  "RESULT_TOO_LARGE",
  // The user said no: asking again the same way will not change that.
  "CONFIRM_DECLINED",
]);

/** Whether a failure counts toward a loop: a kind a retry cannot fix, or a service's refusal; never one the host can fix between calls. */
function counted(error: RuntimeError): boolean {
  if ((error as { hostFixable?: boolean }).hostFixable === true) return false;
  return RETRY_CANNOT_FIX.has(error.code) || (error.code === "UPSTREAM_ERROR" && retryCannotFix(error.details));
}

/** The HTTP status a counted failure carried, said in LOOP_DETECTED ("UPSTREAM_ERROR (HTTP 404)"). */
function statusOf(error: RuntimeError): number | undefined {
  const status = error.details?.status;
  return typeof status === "number" ? status : undefined;
}

/** Failures decided against the plugin's catalog: they count only while that catalog stays the same. */
const CATALOG_BOUND: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["UNKNOWN_TOOL", "ARG_VALIDATION_FAILED"]);

/** Text to write as it is, on canonicalJson's work stack (everything else on it is a value still to write). */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * Canonical JSON: object keys sorted, so `{a,b}` and `{b,a}` are one call. Also the key of the
 * confirmation gate (confirm.ts) and of REST idempotency (adapters/rest/idempotency.ts).
 *
 * Written with a work stack rather than by recursion: arguments are the agent's, parsed from JSON
 * of any depth, and a recursion thousands of levels deep overflowed the stack. That RangeError,
 * thrown while a failed call was being recorded, replaced the call's own error (a schema failure
 * answered as UPSTREAM_ERROR "Maximum call stack size exceeded").
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Literal) {
      out += item.text;
    } else if (Array.isArray(item)) {
      // Pushed in reverse: the first element is written first.
      work.push(new Literal("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        // A hole writes nothing, as the recursive map-and-join did (JSON never has one).
        if (i in item) work.push(item[i]);
        if (i > 0) work.push(new Literal(","));
      }
      out += "[";
    } else if (item && typeof item === "object") {
      const entries = Object.entries(item as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Literal("}"));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        work.push(v, new Literal(`${i > 0 ? "," : ""}${JSON.stringify(k)}:`));
      }
      out += "{";
    } else {
      out += JSON.stringify(item) ?? "null";
    }
  }
  return out;
}

export interface LoopBreakerOptions {
  threshold?: number;
  windowMs?: number;
  /** Milliseconds since an epoch; tests inject their own clock. */
  now?: () => number;
}

export interface LoopBreaker {
  /**
   * Throws LOOP_DETECTED when this call already failed the same way threshold − 1 times within
   * the window. Returns the key when it had to compute it (the session had failures on record).
   */
  check(session: Session, keyOf: () => string, catalogVersion?: () => number): string | undefined;
  /**
   * Record the outcome: a success clears the call's record, a countable failure adds to it.
   * `catalogVersion`: the called plugin's catalog version now (read only when a failure is recorded).
   * `plugin`: the prefix of the plugin the call reached, kept with a failure so a write there can clear it.
   */
  record(session: Session, key: string | undefined, keyOf: () => string, error: RuntimeError | undefined, catalogVersion?: () => number, plugin?: string): void;
  /**
   * A write to `plugin` succeeded: the service refusals counted for that plugin are forgotten
   * (the data they were about may have changed). Failures no write can fix (a schema, a missing
   * confirm, an unknown tool) stay counted.
   */
  dataChanged(session: Session, plugin: string): void;
}

export function createLoopBreaker(options: LoopBreakerOptions = {}): LoopBreaker {
  const threshold = options.threshold ?? LOOP_THRESHOLD;
  const windowMs = options.windowMs ?? LOOP_WINDOW_MS;
  const now = options.now ?? Date.now;
  return {
    check(session, keyOf, catalogVersion) {
      if (session.loopMemory.size === 0) return undefined;
      const key = keyOf();
      const record = session.loopMemory.get(key);
      if (!record) return key;
      const catalogChanged = record.catalog !== undefined && catalogVersion !== undefined && catalogVersion() !== record.catalog;
      if (now() - record.lastAt >= windowMs || catalogChanged) {
        session.loopMemory.delete(key);
        return key;
      }
      if (record.count >= threshold - 1) {
        const waitS = Math.ceil((record.lastAt + windowMs - now()) / 1000);
        throw new RuntimeError(
          "LOOP_DETECTED",
          `this exact call failed ${record.count} times in a row with ${record.code}${record.status !== undefined ? ` (HTTP ${record.status})` : ""}; it was not run again (an unchanged retry cannot succeed; it is let through again in ${waitS} s)`,
          { previousError: record.code, ...(record.status !== undefined ? { previousStatus: record.status } : {}), attempts: record.count + 1 },
        );
      }
      return key;
    },
    record(session, key, keyOf, error, catalogVersion, plugin) {
      if (!error) {
        if (key !== undefined) session.loopMemory.delete(key);
        return;
      }
      if (!counted(error)) return;
      const k = key ?? keyOf();
      const previous = session.loopMemory.get(k);
      const at = now();
      const catalog = CATALOG_BOUND.has(error.code) ? catalogVersion?.() : undefined;
      const fresh = previous && previous.code === error.code && at - previous.lastAt < windowMs && previous.catalog === catalog;
      session.loopMemory.delete(k); // re-inserted last: the Map's order is the age order
      const status = statusOf(error);
      session.loopMemory.set(k, { code: error.code, count: fresh ? previous.count + 1 : 1, lastAt: at, ...(catalog !== undefined ? { catalog } : {}), ...(status !== undefined ? { status } : {}), ...(plugin !== undefined ? { plugin } : {}) });
      if (session.loopMemory.size > MEMORY_LIMIT) {
        const oldest = session.loopMemory.keys().next().value;
        if (oldest !== undefined) session.loopMemory.delete(oldest);
      }
    },
    dataChanged(session, plugin) {
      if (session.loopMemory.size === 0) return;
      for (const [key, record] of session.loopMemory) if (record.plugin === plugin && record.code === "UPSTREAM_ERROR") session.loopMemory.delete(key);
    },
  };
}
