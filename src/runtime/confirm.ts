import { nodeCrypto } from "../node-crypto.js";
import { canonicalJson } from "./loop-breaker.js";
import { argumentLines, QUESTION_ARGUMENT_CHARS } from "./question-arguments.js";

// In a module of its own, so the plugin kit can recognise it without loading this one.
export { ConfirmInterrupt } from "../confirm-interrupt.js";

/**
 * The human confirmation of writes. A call that changes data is held at the confirm gate; when
 * the client can show its user a form (MCP elicitation), the gate asks the user through a
 * Confirmer instead of trusting a `confirm: true` the model wrote. The policy says which:
 *  - "elicit" (default): ask the user when the client can; `confirm: true` only for clients that cannot
 *  - "flag": the model's `confirm: true` is enough (today's gate), even when the client could ask
 */

export type ConfirmPolicy = "elicit" | "flag";
const CONFIRM_POLICIES: readonly ConfirmPolicy[] = ["elicit", "flag"];

/**
 * What the user answered. "unconfirmed": an accept whose form did not say yes (`confirm` not the
 * boolean true: unticked, missing, "false", 0, …). Only "accept" lets a write run.
 */
export type ConfirmDecision = "accept" | "decline" | "cancel" | "unconfirmed";

/**
 * What the user is asked about: which plugin, which downstream tool, with which arguments. For a
 * skill the question is about the whole run (the skill and its arguments; the tool is its first
 * write): one answer covers every write of that run, because a skill re-run after the answer must
 * not repeat a write it already made.
 */
export interface ConfirmQuestion {
  plugin: string;
  tool: string;
  arguments: unknown;
  skill?: string;
  skillArguments?: unknown;
  /**
   * How values are masked in the text the user reads: the fleet's redactor, as on results (a
   * configured secret in the arguments is not shown in clear). The digest does not use it.
   */
  redact?: (value: unknown) => unknown;
}

/**
 * Asks the user; resolves with their decision. May throw ConfirmInterrupt to answer later (the
 * facade asks, then runs the call again with the answer). `withdraw`: aborted when the caller no
 * longer wants the answer (a command line that was stopped); the question is then taken back from
 * the client.
 */
export type Confirmer = (question: ConfirmQuestion, withdraw?: AbortSignal) => Promise<ConfirmDecision>;

/** A stable digest of a question: an answer applies to exactly this plugin, tool and arguments. */
export function questionDigest(question: ConfirmQuestion): string {
  const subject = question.skill !== undefined ? { p: question.plugin, s: question.skill, a: question.skillArguments ?? {} } : { p: question.plugin, t: question.tool, a: question.arguments ?? {} };
  return nodeCrypto().createHash("sha256").update(canonicalJson(subject)).digest("base64url");
}

/**
 * What a discover answer says of its `writes: true` entries: who confirms a change. A client
 * that will show its user the question needs no flag from the model (and must not be invited to
 * add one as a way round the question). `commandLine`: the caller is a command line in
 * agent_tools_exec, which has no top level to put `confirm` in: it confirms with `--confirm`.
 */
export function confirmWording(userConfirms: boolean, commandLine = false): string {
  if (userConfirms) return "writes: true changes data; your user is asked to confirm each change in their client when you call it (no confirm flag needed)";
  return commandLine ? "writes: true changes data; add --confirm to the command line only if the user asked" : "writes: true changes data; add confirm: true (top level) only if the user asked";
}

export function isConfirmPolicy(value: unknown): value is ConfirmPolicy {
  return (CONFIRM_POLICIES as readonly unknown[]).includes(value);
}

/**
 * What the user reads: the plugin, the tool, and every key of the arguments, one a line, each long
 * value cut on its own (question-arguments.ts): nothing the write does may hide past a cut.
 */
export function renderQuestion(question: ConfirmQuestion, maxChars = QUESTION_ARGUMENT_CHARS): string {
  const redact = question.redact ?? ((value: unknown) => value);
  // Masked before any cut: a secret cut in two would no longer be recognised.
  const block = (value: unknown): string => argumentLines(redact(value ?? {}), maxChars).map((line) => `\n  ${line}`).join("");
  if (question.skill !== undefined) {
    return `Allow plugin '${question.plugin}' to run skill '${question.skill}'? It changes data, first with '${question.tool}'.\nSkill arguments:${block(question.skillArguments)}\nFirst change:${block(question.arguments)}`;
  }
  return `Allow plugin '${question.plugin}' to run '${question.tool}'? It changes data.\nArguments:${block(question.arguments)}`;
}
