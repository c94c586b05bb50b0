import type { ConfirmQuestion } from "./runtime/confirm.js";

/**
 * The runtime's "waiting for the user" signal, in a module of its own (no imports but a type) so
 * that the plugin kit can recognise it without loading any runtime code (the kit stays slim: a
 * test walks its import graph).
 */

/**
 * Thrown by a Confirmer that cannot wait for the answer inside this request: the question goes to
 * the user (a 2025-era `elicitation/create` while the request waits, or a 2026-07-28
 * `input_required` result) and the call runs again with the answer. It passes through the runtime
 * untouched: nothing after the gate has run.
 */
export class ConfirmInterrupt extends Error {
  constructor(readonly question: ConfirmQuestion) {
    super(`waiting for the user to confirm '${question.tool}' of plugin '${question.plugin}'`);
    this.name = "ConfirmInterrupt";
  }
}

/**
 * Whether a caught error is the run stopping to ask the user to confirm a write. It is not a
 * failure, so code that catches errors from `adapter.call` (a skill, a kit helper) rethrows it as
 * it is: wrapped in an error of its own, or swallowed, it would stand in for the question. The
 * plugin kit exports it (`agent-tools-runtime/plugin`) so that skills need not know the class.
 */
export function waitsForUser(error: unknown): boolean {
  return error instanceof ConfirmInterrupt;
}
