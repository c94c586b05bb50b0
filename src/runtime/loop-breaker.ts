import type { Session } from "./session.js";

/**
 * The same failing call (same operation, same arguments, same error) repeated in one session is
 * answered with LOOP_DETECTED from the third time on, without running it again. The original
 * runtime was seen retrying one malformed call 1,022 times; each retry costs a model turn.
 */

export const LOOP_THRESHOLD = 3;

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

export function loopKey(operation: string, target: unknown): string {
  return `${operation}|${canonicalJson(target)}`;
}

/** How many times this exact call has already failed with one and the same error code. */
export function previousFailures(session: Session, key: string): { code: string; count: number } | undefined {
  return session.loopMemory.get(key);
}

export function shouldBreakLoop(session: Session, key: string): boolean {
  return (session.loopMemory.get(key)?.count ?? 0) >= LOOP_THRESHOLD - 1;
}

export function rememberOutcome(session: Session, key: string, errorCode: string | undefined): void {
  if (errorCode === undefined) {
    session.loopMemory.delete(key);
    return;
  }
  const previous = session.loopMemory.get(key);
  const count = previous && previous.code === errorCode ? previous.count + 1 : 1;
  session.loopMemory.set(key, { code: errorCode, count });
  // Bound memory: a session that fails many distinct calls keeps only the most recent ones.
  if (session.loopMemory.size > 500) {
    const oldest = session.loopMemory.keys().next().value;
    if (oldest !== undefined) session.loopMemory.delete(oldest);
  }
}
