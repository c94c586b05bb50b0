import type { Identity } from "../runtime/access.js";
import type { Counters } from "../state/types.js";

/**
 * Per-identity request budgets in fixed one-minute windows, counted in the shared state so that
 * the budget holds across every instance behind the balancer (Redis) or in the one process (memory).
 */

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number; limit: number };

const WINDOW_MS = 60_000;

export async function checkRate(counters: Counters, identity: Identity | undefined): Promise<RateDecision> {
  const limit = identity?.ratePerMinute;
  if (!identity || !limit) return { ok: true };
  const { count, resetInMs } = await counters.hit(`identity:${identity.name}`, WINDOW_MS);
  if (count <= limit) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)), limit };
}
