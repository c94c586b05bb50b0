import type { Adapter } from "../adapters/types.js";
import { DeadlineError } from "./result.js";

/**
 * A deadline that passed while the backend was still starting: the backend's failed start
 * (Adapter.stillStarting, with the hint about its config entry) instead of UPSTREAM_TIMEOUT, whose
 * "narrower request" no call can follow (the call never reached the backend). Anything else is
 * returned as it is.
 */
export function startOrDeadline(error: unknown, adapter: Pick<Adapter, "stillStarting">): unknown {
  if (!(error instanceof DeadlineError) || error.code !== "UPSTREAM_TIMEOUT") return error;
  return adapter.stillStarting?.() ?? error;
}
