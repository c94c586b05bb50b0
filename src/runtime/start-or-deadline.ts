import type { Adapter } from "../adapters/types.js";
import { DeadlineError } from "./result.js";

/**
 * A deadline that passed while the backend was still starting: the backend's failed start
 * (Adapter.stillStarting, with the hint about its config entry) instead of UPSTREAM_TIMEOUT, whose
 * "narrower request" no call can follow (the call never reached the backend). Anything else is
 * returned as it is. `adapter` is the plugin's own (never a skill's gated view of it); an answer
 * that is no Error (a hand-written adapter's async `stillStarting`, a promise) says nothing.
 */
export function startOrDeadline(error: unknown, adapter: Pick<Adapter, "stillStarting">): unknown {
  if (!(error instanceof DeadlineError) || error.code !== "UPSTREAM_TIMEOUT") return error;
  const start: unknown = adapter.stillStarting?.();
  return start instanceof Error ? start : error;
}
