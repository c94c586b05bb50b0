import type { Adapter, CallContext } from "../adapters/types.js";
import { RuntimeError } from "../errors.js";
import type { SkillGate } from "./gate.js";

/**
 * One tool call the gate has already let through: run it once, later (in a background job),
 * under `signal` (the job's: cancelling the job aborts the call).
 */
export type ApprovedCall = (signal: AbortSignal) => Promise<unknown>;

/**
 * What an approved call runs with besides its signal: only what outlives the skill's request
 * (session, logger, job store). The request's own deadline, relay and warnings end with it.
 */
export type BackgroundContext = Pick<CallContext, "sessionId" | "log" | "jobs">;

/**
 * A skill's way to put a call through the gate now and run it after its own call has returned.
 * A background job runs when the skill's request is over: the gate can no longer ask the user
 * then (the question belongs to that request), so a write handed to a job would only fail later.
 * Asked here instead, while the request is open, the question (or the refusal, or the missing
 * confirm) is the skill's answer, and the job starts only once the gate has said yes.
 *
 * The decision covers exactly this tool and these arguments, once: they are copied before the
 * gate sees them, so a later change to the skill's object does not run something else.
 */
export async function approveCall(adapter: Adapter, gate: SkillGate, background: BackgroundContext, name: string, args: Record<string, unknown> = {}): Promise<ApprovedCall> {
  const approved = structuredClone(args);
  await gate.call(name, approved);
  let spent = false;
  return (signal) => {
    if (spent) {
      return Promise.reject(new RuntimeError("CONFIRM_REQUIRED", `'${name}' was not run: its approval was spent on an earlier run (an approval covers one call); the skill must approve the call again`, { tool: name }));
    }
    spent = true;
    return adapter.call(name, approved, { ...background, signal });
  };
}
