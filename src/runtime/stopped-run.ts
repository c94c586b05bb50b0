import { describeThrown, RuntimeError } from "../errors.js";
import type { Cancellation } from "../cancel.js";
import { DeadlineError } from "./result.js";

/**
 * A run the runtime stopped (its deadline passed, or the client cancelled it) is answered at
 * once, but a skill's code cannot be killed: it may go on and ask for more steps. The skill's
 * gate refuses every step after the stop (`refuseAfterStop`), so a write never happens after the
 * model was told the run failed; and the answer's hint says what may already have happened
 * (`stoppedRunError`), since a blind retry of a skill that wrote before the deadline writes twice.
 */

/** A step a skill's run sent on to its plugin before it ended: the tool (or adapter method) and whether it changes data. */
export interface SentStep {
  target: string;
  writes: boolean;
}

/** The error a skill's step gets when its run was stopped before it: nothing is sent, and the skill is told why. */
export function refuseAfterStop(skill: string, step: string, stop: Cancellation): RuntimeError | undefined {
  if (!stop.aborted) return undefined;
  const why = stop.reason instanceof DeadlineError && stop.reason.code === "UPSTREAM_TIMEOUT" ? "it ran past its deadline" : "it was cancelled";
  return new RuntimeError(
    stop.reason instanceof DeadlineError ? stop.reason.code : "UPSTREAM_ERROR",
    `skill '${skill}' was stopped (${why}: ${describeThrown(stop.reason)}); its step '${step}' was not sent, and no later step will be`,
    { skill, step },
    "The run is over and its caller has its answer: return (or throw) now instead of going on.",
  );
}

/**
 * The error a skill's step gets when its run has already answered (a timer, or a promise the
 * skill did not wait for, firing later): the gate closed with the answer, so nothing is sent
 * that the caller was not told of.
 */
export function refuseAfterAnswer(skill: string, step: string): RuntimeError {
  return new RuntimeError(
    "UPSTREAM_ERROR",
    `skill '${skill}' has already answered: its run is over, so its step '${step}' was not sent, and no later step will be`,
    { skill, step },
    "Wait for every step (await it) before the skill returns; to run a call after the run, approve it during the run (context.approveCall) and hand it to a job.",
  );
}

/**
 * The deadline's (or cancel's) error for a skill run or a write, with a hint that says what may
 * have happened: the steps that change data sent before the stop may have taken effect; none are
 * sent after it. A read-only tool or a skill that sent no write keeps the plain "retry once".
 */
export function stoppedRunError(error: DeadlineError, run: { skill?: string; tool?: string; writes?: boolean; sent?: readonly SentStep[] }): DeadlineError {
  const details = { ...error.details };
  let hint: string | undefined;
  if (run.skill !== undefined) {
    const sent = run.sent ?? [];
    const writes = [...new Set(sent.filter((s) => s.writes).map((s) => s.target))];
    details.stepsSent = sent.length;
    details.writesSent = writes;
    const after = "Nothing more of it is sent after the stop.";
    hint = writes.length
      ? `Skill '${run.skill}' had already sent steps that change data (${writes.map((w) => `'${w}'`).join(", ")}) before it was stopped, and they may have taken effect. ${after} Do not simply run it again: look at the data first (the plugin's read tools) and tell the user what was done; run it again only for what is missing.`
      : `Skill '${run.skill}' was stopped before it sent any step that changes data (${sent.length} read step${sent.length === 1 ? "" : "s"} sent). ${after} Retry once with a narrower request (fewer items, a filter); if it times out again, tell the user.`;
  } else if (run.writes && run.tool !== undefined) {
    hint = `'${run.tool}' changes data, and the runtime stopped waiting for it: the service may still have done the change. Do not simply call it again: look at the data first (a read tool) and call it again only if the change is missing; if it times out again, tell the user.`;
  }
  if (hint === undefined) return error;
  return new DeadlineError(error.code, error.message, details, hint);
}
