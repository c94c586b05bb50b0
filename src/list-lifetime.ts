import { positiveMs } from "./positive-int.js";

/**
 * How long a listed catalog stays current, from the `ttlMs` a 2026-07-28 list result states. The
 * official SDK v2 server writes `ttlMs: 0` on every list result its author gave no cache hint (and
 * turns an invalid value into 0): taken as said, every use of the plugin would list its tools again.
 * So a lifetime under the minimum (AGENT_TOOLS_MIN_LIST_LIFETIME_MS, 30 s by default) counts as
 * the minimum; a server whose tools change sooner announces it (list_changed), which is heard at once.
 */
export const DEFAULT_MIN_LIST_LIFETIME_MS = 30_000;

/** The lifetime to keep a list for (ms), or undefined when `ttlMs` states none (not a finite number ≥ 0): kept until the server says it changed. */
export function listLifetime(ttlMs: unknown, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 0) return undefined;
  return Math.max(ttlMs, positiveMs(env.AGENT_TOOLS_MIN_LIST_LIFETIME_MS) ?? DEFAULT_MIN_LIST_LIFETIME_MS);
}
