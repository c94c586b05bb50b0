/**
 * The plugin author's kit: `import { … } from "agent-tools-runtime/plugin"`.
 *
 * What a skill needs and nothing of the server: this module and what it imports load no MCP SDK,
 * no sandbox, no search index (a test walks its import graph), so a skill that uses it costs
 * nothing at cold start. Three pieces, so bundled and third-party skills stop copying their own:
 *  - `skillContext(adapter, context)`: calls that answer the tool's value, unwrapped;
 *  - `SkillError` / `skillError(code, message, {hint, details})`: a failure with a code and a hint;
 *  - `createAndVerify(plan)`: create, read back, compare — one failure contract.
 * And `waitsForUser(error)`: a caught error that is the run asking the user is rethrown as it is.
 */

import type { Adapter, CallContext } from "./adapters/types.js";
import type { SkillContext } from "./plugins/skills.js";
import type { ErrorCode } from "./runtime/errors.js";
import { jsonTextValue } from "./json-text-value.js";
import { describeValue } from "./errors.js";
import { waitsForUser } from "./confirm-interrupt.js";

export { runSteps, type SkillStep, type StepFailure } from "./plugins/skill-steps.js";
// `catch (error) { if (waitsForUser(error)) throw error; … }` in a skill that catches errors from adapter.call.
export { waitsForUser };
export { definePlugin, defineSkill } from "./define.js";
export type { Adapter, CallContext, SkillContext, ErrorCode };
export type { Skill, SkillMeta, SkillRelated } from "./plugins/skills.js";

// ---- errors ----------------------------------------------------------------------------------

export interface SkillErrorOptions {
  /** What the agent should do next; replaces the code's generic hint. */
  hint?: string;
  /** Facts the agent may need (ids created, what differed); shown as the error's `details`. */
  details?: Record<string, unknown>;
}

/**
 * A skill's failure as the agent sees it: `code` is one of the runtime's codes
 * (ARG_VALIDATION_FAILED for bad arguments, NOT_CONFIGURED, UPSTREAM_ERROR, …; anything else is
 * answered as UPSTREAM_ERROR), the message names what failed, the hint says what to do.
 */
export class SkillError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: SkillErrorOptions = {}) {
    super(message);
    this.name = "SkillError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** `throw skillError("ARG_VALIDATION_FAILED", "'id' must be …", { hint: "…" })`. */
export function skillError(code: ErrorCode, message: string, options?: SkillErrorOptions): SkillError {
  return new SkillError(code, message, options);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * Any thrown value or error body as one readable line — never "[object Object]": an Error's
 * message, a string, an `{error: {message}}` / `{error: "…"}` / `{message}` body, else its JSON.
 * The runtime's own reading (errors.ts), so a skill and the runtime say a value the same way.
 */
export function describeError(value: unknown): string {
  return describeValue(value);
}

/** The code a caught error carries, when it is a string; else `fallback`. */
function codeOf(error: unknown, fallback: ErrorCode): ErrorCode {
  const code = isRecord(error) || error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && code ? (code as ErrorCode) : fallback;
}

// ---- unwrapping ------------------------------------------------------------------------------

interface ContentPart {
  type: string;
  text?: string;
}

function isCallToolResult(value: unknown): value is { content: ContentPart[]; structuredContent?: unknown; isError?: boolean } {
  return isRecord(value) && Array.isArray(value.content);
}

/** A rest tool's answer: exactly `{status, data}`. */
function isRestEnvelope(value: unknown): value is { status: number; data: unknown } {
  return isRecord(value) && typeof value.status === "number" && "data" in value && Object.keys(value).length === 2;
}

/**
 * A tool's answer as a value, whatever the adapter kind:
 *  - an MCP result: its structuredContent, else its text parsed when it is JSON, else the text
 *    itself (plain text is a value too), else (images, resources) the content list; a result
 *    flagged `isError` throws SkillError UPSTREAM_ERROR with the tool's own text;
 *  - a rest tool's `{status, data}`: the data;
 *  - anything else as it is.
 */
export function unwrapResult(raw: unknown, toolName?: string): unknown {
  if (isRestEnvelope(raw)) return raw.data;
  if (!isCallToolResult(raw)) return raw;
  const texts = raw.content.filter((c) => isRecord(c) && c.type === "text" && typeof c.text === "string").map((c) => c.text as string);
  const text = texts.join("\n");
  if (raw.isError) {
    const what = toolName ? `tool '${toolName}'` : "the tool";
    // Not cut here: a skill holds no redactor, and a cut before the mask would leave the first
    // characters of a credential it went through. The runtime masks the error, then bounds it.
    throw new SkillError("UPSTREAM_ERROR", `${what} answered with an error: ${text.trim() || "no message"}`, { details: { content: raw.content } });
  }
  if (raw.structuredContent !== undefined) return raw.structuredContent;
  if (texts.length === 0 || texts.length !== raw.content.length) return raw.content;
  // One JSON text (an object, an array or a scalar such as `true`) is its value; anything else, the text.
  const parsed = jsonTextValue(text);
  return parsed ? parsed.value : text;
}

// ---- the skill context -----------------------------------------------------------------------

export interface KitContext {
  /** Call a tool of this plugin and answer its value (see unwrapResult). Gated like any skill call. */
  call(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** The same call, answering what the adapter returned (an MCP result, `{status, data}`, …). */
  callRaw(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** The adapter the runtime handed the skill. */
  readonly adapter: Adapter;
  /** Whether calls that change data may run: the context's `confirmed`, read at each use. */
  readonly confirmed: boolean;
  readonly signal: AbortSignal | undefined;
  /** The runtime's third argument to run(), passed on to every call (abort signal, session, jobs). */
  readonly context: SkillContext | undefined;
}

/**
 * `export async function run(adapter, args, context) { const kit = skillContext(adapter, context); const task = await kit.call("get_task", {id}); … }`
 */
export function skillContext(adapter: Pick<Adapter, "call">, context?: SkillContext | CallContext): KitContext {
  const skillCtx = context as SkillContext | undefined;
  const callRaw = (name: string, args: Record<string, unknown> = {}) => adapter.call(name, args, context);
  return {
    callRaw,
    async call(name, args = {}) {
      return unwrapResult(await callRaw(name, args), name);
    },
    adapter: adapter as Adapter,
    // Read through: the run's confirmation can change while it runs (the user approves a write).
    get confirmed() {
      return skillCtx?.confirmed === true;
    },
    signal: context?.signal,
    context: skillCtx,
  };
}

// ---- create and verify -----------------------------------------------------------------------

export interface VerifyPlan<Id = unknown> {
  /** What is created, for messages: "task", "record in 'posts'", "workflow". */
  what: string;
  /** Create it; answers what the service answered (a value: use kit.call). */
  create(): Promise<unknown>;
  /** The new id in the create answer; undefined, null, "" or [] when it has none. */
  idOf(created: unknown): Id | undefined | null;
  /** Read it back by id (a value). */
  read(id: Id): Promise<unknown>;
  /** Fields that must read back equal (JSON equality; a missing stored field counts as null). */
  expect?: Record<string, unknown>;
  /** The stored object the fields are read from; default the read-back value itself. */
  storedOf?(readBack: unknown): unknown;
  /** Further problems found in the read-back (structure, state); each one a sentence. */
  check?(stored: unknown, created: unknown): string[];
  /** Fields never echoed back in the answer or the error (passwords). */
  secret?: readonly string[];
  /**
   * How to look for the thing when the create got no answer (a timeout, a lost connection), e.g.
   * "find-workflows with namePattern 'Nightly'": the hint names it, so the agent looks before it
   * creates again. Default: the plugin's list or search tools.
   */
  lookFirst?: string;
}

export interface FieldCheck {
  field: string;
  expected: unknown;
  stored: unknown;
  /** False when the read-back has no such field at all (a service that drops unknown fields). */
  present: boolean;
  match: boolean;
}

export interface Verified<Id = unknown> {
  verified: true;
  id: Id;
  checks: FieldCheck[];
  stored: unknown;
  created: unknown;
}

function hasId(id: unknown): boolean {
  return id !== undefined && id !== null && id !== "" && !(Array.isArray(id) && id.length === 0);
}

function idText(id: unknown): string {
  return Array.isArray(id) ? id.map(String).join(", ") : String(id);
}

function withoutSecrets(value: unknown, secret: readonly string[]): unknown {
  if (!secret.length || !isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !secret.includes(key)));
}

/**
 * Whether a failed write may still have happened: it got no answer, rather than a refusal. A
 * timeout (UPSTREAM_TIMEOUT) is one; so is an error flagged `outcomeUnknown: true` (a plugin's
 * REST helper flags a write whose connection broke before the answer). The service may have
 * stored the write and answered late, so doing it again may make a duplicate.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!isRecord(error) && !(error instanceof Error)) return false;
  const flagged = error as { code?: unknown; outcomeUnknown?: unknown };
  return flagged.code === "UPSTREAM_TIMEOUT" || flagged.outcomeUnknown === true;
}

/**
 * The error for a create that got no answer (see outcomeUnknown): it keeps the code, says that
 * whether the thing exists is unknown, and its hint says to look first (`lookFirst`: which tool or
 * skill finds it) instead of the generic "retry", which would make a duplicate.
 */
export function unknownOutcomeError(what: string, error: unknown, lookFirst?: string): SkillError {
  const where = lookFirst ?? "the plugin's list or search tools";
  return new SkillError(codeOf(error, "UPSTREAM_TIMEOUT"), `creating the ${what} got no answer, so whether it was created is unknown (the service may have stored it and answered late): ${describeError(error)}`, {
    hint: `Look for the ${what} first (${where}); create it again only if it is not there, since creating it again blindly may make a duplicate.`,
    details: { stage: "create", outcome: "unknown" },
  });
}

/**
 * The hint of a create the service refused with a 4xx status: it answered "no", so nothing was
 * created and running it again is safe once the arguments are fixed. Without its own hint the
 * runtime would tell the model that the create "may have taken effect" and to look first, which
 * only holds when the effect is unknown (a 5xx, a timeout, a lost connection: no hint here).
 */
function refusedCreateHint(what: string, status: unknown): string | undefined {
  if (typeof status !== "number" || status < 400 || status > 499) return undefined;
  if (status === 429) return `The service refused to create the ${what} for now (HTTP 429, too many requests), so nothing was created. Wait a little, then run it again.`;
  return `The service refused to create the ${what} (HTTP ${status}), so nothing was created. Fix what \`message\` names (the argument the service objected to), then run it again.`;
}

/**
 * Create something, read it back by its new id, compare. The one failure contract:
 *  - the user is being asked to confirm a write (waitsForUser): that is rethrown as it is, never
 *    wrapped, so the question reaches the user and the run goes again with the answer;
 *  - the create got no answer (outcomeUnknown): unknownOutcomeError, whose hint says to look
 *    for it first (`lookFirst`) before creating again;
 *  - the create was refused: the error keeps the create's code and details (nothing exists to
 *    clean up); refused with a 4xx status, its hint says so and to fix the arguments
 *    (refusedCreateHint), not to look at the data first;
 *  - anything after a successful create (no id in the answer, the read-back fails, a field
 *    differs, `check` finds a problem): SkillError UPSTREAM_ERROR whose message names the id and
 *    whose details carry `stage` ("id", "read-back" or "compare"), `id` and what was learned — the
 *    thing may exist, and the agent must be able to find it;
 *  - otherwise `{verified: true, id, checks, stored, created}`.
 */
export async function createAndVerify<Id = unknown>(plan: VerifyPlan<Id>): Promise<Verified<Id>> {
  const secret = plan.secret ?? [];
  let created: unknown;
  try {
    created = await plan.create();
  } catch (error) {
    // The user is being asked to confirm the create: not a failure (see waitsForUser).
    if (waitsForUser(error)) throw error;
    if (outcomeUnknown(error)) throw unknownOutcomeError(plan.what, error, plan.lookFirst);
    const carried = error instanceof SkillError && error.hint !== undefined ? error.hint : undefined;
    const upstream = (error as { details?: unknown } | null)?.details;
    // The create's own details beside the stage (`tool` of a confirm gate's refusal, `status` of a service's).
    const details: Record<string, unknown> = { ...(isRecord(upstream) ? upstream : {}), stage: "create" };
    const hint = carried ?? refusedCreateHint(plan.what, details.status);
    throw new SkillError(codeOf(error, "UPSTREAM_ERROR"), `creating the ${plan.what} failed, so there is nothing to verify: ${describeError(error)}`, {
      ...(hint !== undefined ? { hint } : {}),
      details,
    });
  }
  const id = plan.idOf(created);
  if (!hasId(id)) {
    throw new SkillError("UPSTREAM_ERROR", `the ${plan.what} may have been created, but the answer has no id, so it cannot be read back`, {
      hint: "Look for it by its other fields (a list or search tool) before creating it again.",
      details: { stage: "id", created: withoutSecrets(created, secret) },
    });
  }
  const exists = `The ${plan.what} exists with id ${idText(id)}: read it or remove it with the plugin's tools; do not create it again blindly.`;
  let readBack: unknown;
  try {
    readBack = await plan.read(id as Id);
  } catch (error) {
    // A read through a tool the plugin counts as a write asks the user too.
    if (waitsForUser(error)) throw error;
    throw new SkillError("UPSTREAM_ERROR", `${plan.what} ${idText(id)} was created, but reading it back failed: ${describeError(error)}`, {
      hint: exists,
      details: { stage: "read-back", id, created: withoutSecrets(created, secret) },
    });
  }
  const stored = plan.storedOf ? plan.storedOf(readBack) : readBack;
  const checks: FieldCheck[] = Object.entries(plan.expect ?? {})
    .filter(([field]) => !secret.includes(field))
    .map(([field, expected]) => {
      const present = isRecord(stored) && field in stored;
      const value = present ? stored[field] : undefined;
      return { field, expected, stored: value, present, match: JSON.stringify(expected ?? null) === JSON.stringify(value ?? null) };
    });
  const mismatches = checks.filter((c) => !c.match);
  const problems = [
    ...mismatches.map((c) => `${c.field} (sent ${JSON.stringify(c.expected)}, ${c.present ? `stored ${JSON.stringify(c.stored ?? null)}` : "not in what was read back"})`),
    ...(plan.check ? plan.check(stored, created) : []),
  ];
  if (problems.length) {
    throw new SkillError("UPSTREAM_ERROR", `${plan.what} ${idText(id)} was created, but what was stored differs from what was sent: ${problems.join("; ")}`, {
      hint: exists,
      details: { stage: "compare", id, problems, checks, stored: withoutSecrets(stored, secret) },
    });
  }
  return { verified: true, id: id as Id, checks, stored: withoutSecrets(stored, secret), created: withoutSecrets(created, secret) };
}
