import { describeThrown, RuntimeError } from "../errors.js";
import type { Cancellation } from "../cancel.js";
import { AdapterError } from "../adapters/shared/errors.js";
import { DeadlineError } from "./result.js";
import type { LoggedWrite } from "./write-log.js";

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

/** What a skill run had sent when it ended: how many steps, and the tools of those that change data (each once). */
function sentSummary(sent: readonly SentStep[]): { stepsSent: number; writesSent: string[] } {
  return { stepsSent: sent.length, writesSent: [...new Set(sent.filter((s) => s.writes).map((s) => s.target))] };
}

/**
 * The hint for a skill run that ended badly (`ended`: "was stopped", "failed") after it had sent
 * writes: they may have taken effect, so a blind retry would make them twice. One sentence for
 * every way a run ends, so the deadline's answer and a failure's say the same.
 */
function lookFirstHint(skill: string, writes: readonly string[], ended: string, after = ""): string {
  return `Skill '${skill}' had already sent steps that change data (${writes.map((w) => `'${w}'`).join(", ")}) before it ${ended}, and they may have taken effect.${after ? ` ${after}` : ""} Do not simply run it again: look at the data first (the plugin's read tools) and tell the user what was done; run it again only for what is missing.`;
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
    const summary = sentSummary(sent);
    Object.assign(details, summary);
    const after = "Nothing more of it is sent after the stop.";
    hint = summary.writesSent.length
      ? lookFirstHint(run.skill, summary.writesSent, "was stopped", after)
      : `Skill '${run.skill}' was stopped before it sent any step that changes data (${sent.length} read step${sent.length === 1 ? "" : "s"} sent). ${after} Retry once with a narrower request (fewer items, a filter); if it times out again, tell the user.`;
  } else if (run.writes && run.tool !== undefined) {
    hint = writeStoppedHint(run.tool, "the runtime stopped waiting for it: the service may still have done the change");
  }
  if (hint === undefined) return error;
  return new DeadlineError(error.code, error.message, details, hint);
}

/**
 * The hint for a tool (or tools) that change data and were stopped or ended before they answered
 * (`how`): one sentence for the runtime's deadline, an adapter's own timeout or crash, and a
 * command line stopped mid-write, so a write is never told to "retry once" whichever stopped it.
 */
function writeStoppedHint(tools: string | readonly string[], how: string): string {
  const list = typeof tools === "string" ? [tools] : tools;
  const named = list.map((t) => `'${t}'`).join(", ");
  const [verb, it] = list.length === 1 ? ["changes", "it"] : ["change", "them"];
  return `${named} ${verb} data, and ${how}. Do not simply call ${it} again: look at the data first (a read tool) and call ${it} again only if the change is missing; if it times out again, tell the user.`;
}

/**
 * The stderr line of a command line that was stopped (`stop`: "ran past its deadline", "was
 * cancelled") while writes it sent were running (`inFlight`) or after some had answered
 * (`answered`): the look-first wording of a stopped write, naming them. A skill run is named as
 * the skill, with the steps that change data it sent, in the words of a stopped skill run's own
 * answer (`_run_skill`'s `writesSent`). Undefined when it sent none.
 */
export function stoppedLineWritesNote(stop: string, writes: { inFlight: readonly LoggedWrite[]; answered: readonly LoggedWrite[] }): string | undefined {
  const parts: string[] = [];
  const tools = (list: readonly LoggedWrite[]) => list.filter((w) => w.kind === "tool").map((w) => w.name);
  const skills = (list: readonly LoggedWrite[]) => list.filter((w): w is Extract<LoggedWrite, { kind: "skill" }> => w.kind === "skill");
  const running = tools(writes.inFlight);
  if (running.length) parts.push(writeStoppedHint(running, `the line ${stop} while ${running.length === 1 ? "it was" : "they were"} running: the service may still have done the change`));
  for (const run of skills(writes.inFlight)) parts.push(lookFirstHint(run.name, run.writes, `was stopped (the line ${stop})`, "Nothing more of it is sent after the stop."));
  const answeredTools = tools(writes.answered);
  const answeredSkills = skills(writes.answered);
  const named = [
    ...(answeredTools.length ? [`${answeredTools.map((t) => `'${t}'`).join(", ")} (changing data)`] : []),
    ...answeredSkills.map((run) => `skill '${run.name}' (whose ${run.writes.length === 1 ? "step" : "steps"} ${run.writes.map((w) => `'${w}'`).join(", ")} ${run.writes.length === 1 ? "changes" : "change"} data)`),
  ];
  if (named.length) {
    const one = answeredTools.length + answeredSkills.reduce((n, run) => n + run.writes.length, 0) === 1;
    parts.push(`Earlier in the line, ${named.join(" and ")} had already answered: ${one ? "that change was" : "those changes were"} sent, so running the whole line again would make ${one ? "it" : "them"} twice; re-run only what is missing.`);
  }
  return parts.length ? parts.join(" ") : undefined;
}

/** Whether an adapter's error (or one it caused) says the backend was stopped or died while it ran the call. */
function wasCutOff(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if (at instanceof AdapterError && at.cutOff) return true;
  }
  return false;
}

/**
 * The error of a tool that changes data when its adapter stopped it (its own timeout: any
 * adapter's UPSTREAM_TIMEOUT) or saw it die mid-run (`cutOff`: a program ended by a signal): the
 * change may have been made, so the hint says to look at the data first, as the runtime's
 * deadline does (stoppedRunError), instead of the code's "retry once". A hint the adapter's
 * author gave (an `errors` rule) is kept: it knows the backend better.
 */
export function cutOffWriteError(error: RuntimeError, tool: string): RuntimeError {
  if (error.hasOwnHint) return error;
  const timedOut = error.code === "UPSTREAM_TIMEOUT";
  if (!timedOut && !wasCutOff(error)) return error;
  const how = timedOut ? "it was stopped before it answered: the service may still have done the change" : "it ended before it answered: the change may have been made, in part or in full";
  return new RuntimeError(error.code, error.message, error.details, writeStoppedHint(tool, how), { cause: error });
}

/**
 * A skill run that failed (it threw, or answered `{isError: true}`) after it had sent steps that
 * change data: the error keeps its code and message, and says which writes were sent
 * (`details.writesSent`, `details.stepsSent`) with the same look-first hint as a stopped run's,
 * since the generic hint ("fix the arguments and run it again") would make those writes twice. A
 * run that sent no write keeps its error as it is, and so does one whose skill gave its own hint
 * (`authoredHint`): its author knows what a partial run leaves ("the workflow may exist: look for
 * it first"), which says more than the runtime can.
 */
export function failedRunError(error: RuntimeError, skill: string, sent: readonly SentStep[], authoredHint = false): RuntimeError {
  const summary = sentSummary(sent);
  if (summary.writesSent.length === 0 || authoredHint) return error;
  const hint = lookFirstHint(skill, summary.writesSent, "failed", "Why it failed is in `message`.");
  return new RuntimeError(error.code, error.message, { ...error.details, ...summary }, hint, { cause: error });
}
