/**
 * `AbortSignal.any` whose sources live as long as the signal it returns.
 *
 * Why: in Node 20 the signal `AbortSignal.any` returns holds its sources only weakly, and a
 * source made by `AbortSignal.timeout(ms)` that nothing else holds is then collected at the next
 * GC, its timer with it: the joined signal never aborts for that time. A skill's step sent with
 * `{ signal: AbortSignal.timeout(300) }`, a REST call's timeout, or the deadline of a question put
 * to the user went on past its time whenever a GC came first (a CI run of the whole suite hit it:
 * a step meant to stop after 300 ms ran to the skill's 8 s deadline). Here the joined signal keeps
 * a strong reference to its sources, so each one lives, and can abort it, while anything still
 * listens to it; no listener is added to a source, so a long-lived source (a run's signal joined
 * to many steps) gathers nothing.
 */
const sourcesOf = new WeakMap<AbortSignal, readonly AbortSignal[]>();

export function anySignal(sources: readonly AbortSignal[]): AbortSignal {
  // eslint-disable-next-line no-restricted-properties -- the one place that may call it: it keeps the sources alive
  const joined = AbortSignal.any(sources as AbortSignal[]);
  sourcesOf.set(joined, sources);
  return joined;
}
