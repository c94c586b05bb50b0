import { anySignal } from "../any-signal.js";
import type { CallContext } from "../adapters/types.js";

/**
 * The context a skill's step (`adapter.call(name, args, ctx?)`) reaches the adapter with.
 *
 * Why: skills write `adapter.call(name, args)`, with no context, so a step sent as written would
 * carry no signal, and the run's deadline or the client's cancel would stop the run while its step
 * went on downstream to the end (a write completing after the caller was told the run stopped).
 * So a step without a context gets the run's own (`run`: the `context` the skill was handed), and
 * the stop aborts the step in flight as it aborts a `_call` (an MCP downstream gets
 * `notifications/cancelled`). A step given a context of its own keeps every field it sets, but its
 * signal is joined to the run's (either aborts the step), never put in its place: no step can
 * escape the run's stop. Anything that is not an object is no context: the run's is used.
 */
export function stepContext(given: unknown, run: CallContext | undefined): unknown {
  if (run === undefined) return given;
  if (given === run) return run;
  if (given === null || typeof given !== "object") return run;
  const theirs = (given as { signal?: unknown }).signal;
  // Read only for a step that brought a signal: the run's AbortSignal is made on first read.
  const joined = theirs instanceof AbortSignal && theirs !== run.signal ? anySignal([theirs, run.signal]) : undefined;
  // The step's own fields (getters kept), with the cancellation set here (not redefined after: a frozen context's could not be).
  const fields: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(given);
  if (joined) {
    fields.signal = { value: joined, enumerable: true };
    // The joined signal alone: an adapter reads `cancel` first (cancel.ts), which would not hear the step's own signal.
    fields.cancel = { value: undefined, enumerable: true };
  } else {
    fields.signal = { get: () => run.signal, enumerable: true };
    fields.cancel = { value: run.cancel, enumerable: true };
  }
  // The run's fields underneath, read through (its job store is still made only on use).
  return Object.create(run, fields) as CallContext;
}
