/** A setting read from the environment as a positive integer; undefined when unset or anything else (the caller picks the default). */
export function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The longest delay Node's timers take: 2^31−1 ms, about 24.8 days. A longer one is not a longer
 * wait: Node warns (TimeoutOverflowWarning) and fires it after 1 ms, so a call timeout set past it
 * would fail every call at once. Every millisecond setting stops here (env, config, manifests).
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Why a millisecond setting stops at MAX_TIMER_MS, as problems and warnings say it. */
export const TIMER_LIMIT = "about 24.8 days, the longest a timer waits";

/** The bound as the rest of a sentence: "… must be a whole number of milliseconds, at most 2147483647 (…)". */
export const TIMER_MOST = `at most ${MAX_TIMER_MS} (${TIMER_LIMIT})`;

/** Whether `ms` (a number of milliseconds already read) is past what a timer takes. */
export function pastTimerLimit(ms: number): boolean {
  return ms > MAX_TIMER_MS && Number.isFinite(ms);
}

/** A millisecond setting from the environment: positiveInt, and no more than MAX_TIMER_MS (else undefined: the caller's default applies). */
export function positiveMs(value: string | undefined): number | undefined {
  const n = positiveInt(value);
  return n !== undefined && !pastTimerLimit(n) ? n : undefined;
}
