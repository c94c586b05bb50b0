import { RuntimeError, type ErrorCode } from "../errors.js";
import type { Session } from "./session.js";

/**
 * The loop breaker stops loops, not retries. It counts identical failures of the kind a retry
 * cannot fix (the arguments fail the schema, the tool does not exist, confirmation is missing…)
 * within a time window; from the third identical attempt inside the window the call is answered
 * LOOP_DETECTED without running. Upstream failures (UPSTREAM_ERROR, UPSTREAM_TIMEOUT) are never
 * counted: a service that failed twice may well answer the third time. When the window has
 * passed since the last real failure, the call runs again. A success clears its record.
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

/** Canonical JSON: object keys sorted, so `{a,b}` and `{b,a}` are one call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
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
  check(session: Session, keyOf: () => string): string | undefined;
  /** Record the outcome: a success clears the call's record, a countable failure adds to it. */
  record(session: Session, key: string | undefined, keyOf: () => string, error: RuntimeError | undefined): void;
}

export function createLoopBreaker(options: LoopBreakerOptions = {}): LoopBreaker {
  const threshold = options.threshold ?? LOOP_THRESHOLD;
  const windowMs = options.windowMs ?? LOOP_WINDOW_MS;
  const now = options.now ?? Date.now;
  return {
    check(session, keyOf) {
      if (session.loopMemory.size === 0) return undefined;
      const key = keyOf();
      const record = session.loopMemory.get(key);
      if (!record) return key;
      if (now() - record.lastAt >= windowMs) {
        session.loopMemory.delete(key);
        return key;
      }
      if (record.count >= threshold - 1) {
        const waitS = Math.ceil((record.lastAt + windowMs - now()) / 1000);
        throw new RuntimeError(
          "LOOP_DETECTED",
          `this exact call failed ${record.count} times in a row with ${record.code}; it was not run again (an unchanged retry cannot succeed; it is let through again in ${waitS} s)`,
          { previousError: record.code, attempts: record.count + 1 },
        );
      }
      return key;
    },
    record(session, key, keyOf, error) {
      if (!error) {
        if (key !== undefined) session.loopMemory.delete(key);
        return;
      }
      if (!RETRY_CANNOT_FIX.has(error.code)) return;
      const k = key ?? keyOf();
      const previous = session.loopMemory.get(k);
      const at = now();
      const fresh = previous && previous.code === error.code && at - previous.lastAt < windowMs;
      session.loopMemory.delete(k); // re-inserted last: the Map's order is the age order
      session.loopMemory.set(k, { code: error.code, count: fresh ? previous.count + 1 : 1, lastAt: at });
      if (session.loopMemory.size > MEMORY_LIMIT) {
        const oldest = session.loopMemory.keys().next().value;
        if (oldest !== undefined) session.loopMemory.delete(oldest);
      }
    },
  };
}
