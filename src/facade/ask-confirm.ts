import { anySignal } from "../any-signal.js";
import type { CallRelay } from "../adapters/relay.js";
import { type ConfirmDecision, type Confirmer, type ConfirmQuestion } from "../runtime/confirm.js";
import { describeThrown, RuntimeError } from "../runtime/errors.js";
import { confirmForm, decisionOf } from "./confirm-rounds.js";

/**
 * Asking the user to confirm a write while the call waits, on a connection that can carry a
 * request mid-call (a 2025-era `elicitation/create`; a held 2026-07-28 call's relay). The
 * question has a deadline, and a question that fails (the client's handler threw, the deadline
 * passed) ends as the facade's own CONFIRM_FAILED answer saying nothing was changed: a call
 * waiting on a client that never answers would otherwise hold its session for as long as the
 * SDK waits (10 minutes), and the SDK's own failure text says neither what happened to the write
 * nor what to do.
 */

/** How long a confirmation question waits for the user's answer by default (AGENT_TOOLS_CONFIRM_TIMEOUT_MS). */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 120_000;

type Elicit = NonNullable<CallRelay["elicit"]>;

/** What the question is about, as the answers name it ("'write_row' of plugin 'db'"). */
function subjectOf(question: ConfirmQuestion): string {
  return `${question.skill !== undefined ? `skill '${question.skill}'` : `'${question.tool}'`} of plugin '${question.plugin}'`;
}

/**
 * Ask once; the user's decision, or CONFIRM_FAILED when no answer came back within `timeoutMs`
 * or the client failed to ask. The caller's own cancel is not a failure of the question: its
 * reason is thrown as it came. Without `timeoutMs` the question waits as long as its relay does
 * (a held 2026-07-28 call's: until the held call expires; no connection is held meanwhile).
 */
export async function askToConfirm(elicit: Elicit, question: ConfirmQuestion, signal: AbortSignal, timeoutMs: number | undefined): Promise<ConfirmDecision> {
  const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  let answer: Awaited<ReturnType<Elicit>>;
  try {
    answer = await elicit(confirmForm(question), deadline ? anySignal([signal, deadline]) : signal);
  } catch (error) {
    if (signal.aborted) throw error;
    const seconds = Math.round((timeoutMs ?? 0) / 100) / 10;
    const why = deadline?.aborted
      ? `nobody answered the question asking the user to confirm ${subjectOf(question)} within ${seconds} s (AGENT_TOOLS_CONFIRM_TIMEOUT_MS)`
      : `the client failed to ask the user to confirm ${subjectOf(question)}: ${describeThrown(error)}`;
    throw new RuntimeError("CONFIRM_FAILED", `${why}; nothing was changed`, { tool: question.tool, ...(question.skill !== undefined ? { skill: question.skill } : {}), reason: deadline?.aborted ? "timeout" : "client-error" });
  }
  return decisionOf(answer.action, answer.content as Record<string, unknown> | undefined);
}

/** A Confirmer that asks through `elicit` mid-call, each question as it comes. */
export function askingConfirmer(elicit: Elicit, signal: AbortSignal, timeoutMs: number | undefined): Confirmer {
  return (question, withdraw) => askToConfirm(elicit, question, withdraw ? anySignal([signal, withdraw]) : signal, timeoutMs);
}
