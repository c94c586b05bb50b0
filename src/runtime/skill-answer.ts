import type { Skill, SkillMeta } from "../plugins/skills.js";
import { ERROR_CODES, RuntimeError, type ErrorCode } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import { echoed, headOf } from "./argument-value.js";
import { MORE_TEXT_FIELD, splitQuote } from "./result.js";

/**
 * How a skill is shown in discover and search answers, and how a skill's own answer is read back,
 * for both shapes of skill: this runtime's (a JSON Schema in `meta.args`) and the original
 * runtime's (a sentence in `meta.args`, `related` links, a `{isError: true}` result for a failure).
 */

// Where a skill's args are read at load (plugins/skill-args.ts), and here for the answers that show them.
import { isSchemaLike } from "../plugins/skill-args.js";
export { isSchemaLike };

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${headOf(flat, max - 1).trimEnd()}…` : flat;
}

/**
 * The parameters of a skill whose args are not a schema: the sentence itself (cut to `maxChars`;
 * `detail: true` shows it whole), or the names of a name → description map.
 */
export function describedSkillParams(args: SkillMeta["args"], maxChars: number): string {
  if (typeof args === "string") return cut(args, maxChars);
  if (isPlainObject(args)) return Object.keys(args).join(", ");
  return "";
}

/** Search text of a skill's arguments: every word counts for ranking, whatever the shape. */
export function skillArgsSearchText(args: SkillMeta["args"], schemaText: (schema: Record<string, unknown>) => string): string {
  if (!args) return "";
  if (typeof args === "string") return args;
  if (isSchemaLike(args)) return schemaText(args);
  return Object.entries(args)
    .map(([name, value]) => (typeof value === "string" ? `${name} ${value}` : name))
    .join(" ");
}

/**
 * A skill's `related` links as a match shows them: in a plugin's own discover answer with the
 * reason, in cross-plugin answers (search) only the targets, where every token counts.
 */
export function relatedOf(skill: Skill, withReasons: boolean): unknown[] | undefined {
  const links = skill.meta.related ?? [];
  if (links.length === 0) return undefined;
  return withReasons ? links.map((l) => (l.why ? { target: l.target, why: l.why } : { target: l.target })) : links.map((l) => l.target);
}

const MESSAGE_KEYS = ["error", "message", "reason", "problem"] as const;

/** A failed skill's own words, and the rest of its answer (without them: they are sent once, in the message). */
interface SaidFailure {
  text: string;
  rest: Record<string, unknown>;
}

function messageOf(result: Record<string, unknown>): SaidFailure | undefined {
  for (const key of MESSAGE_KEYS) {
    const value = result[key];
    const { [key]: _said, ...others } = result;
    if (typeof value === "string" && value.trim()) return { text: value.trim(), rest: others };
    // `{error: {code, message}}`: render the inner message, never "[object Object]".
    if (isPlainObject(value) && typeof value.message === "string" && value.message.trim()) {
      const { message: _message, ...inner } = value;
      return { text: value.message.trim(), rest: Object.keys(inner).length ? { ...others, [key]: inner } : others };
    }
  }
  if (Array.isArray(result.content)) {
    const isText = (c: unknown): c is { type: string; text: string } => isPlainObject(c) && c.type === "text" && typeof c.text === "string";
    const text = result.content.filter(isText).map((c) => c.text).join("\n").trim();
    if (text) {
      const { content: _content, ...others } = result;
      const kept = result.content.filter((c) => !isText(c));
      return { text, rest: kept.length ? { ...others, content: kept } : others };
    }
  }
  return undefined;
}

/** How much of a failed skill's answer stands in for the message it did not give. */
const SUMMARY_CHARS = 200;

/**
 * A failure the skill gave no words for (`{isError: true, verdict: "FAIL", …}`): the start of its
 * answer's JSON, so what it did say (the verdict) is in `message` and not only in the details.
 * Masked by the fleet's redactor before it is cut: a credential the cut went through would leave
 * its first characters before the cut, too few (and followed by "…") for the redactor to know.
 */
function summaryOf(result: Record<string, unknown>, redact: (text: string) => string): string {
  const { isError: _isError, ...rest } = result;
  let json: string;
  try {
    json = JSON.stringify(rest) ?? "";
  } catch {
    json = "";
  }
  if (json === "" || json === "{}") return "the skill reported a failure without a message";
  return `the skill reported a failure without a message; it answered ${echoed(redact(json), SUMMARY_CHARS)}`;
}

/** A message that asks for the run to be confirmed (the original runtime's skills check `args.confirm` themselves). */
const ASKS_CONFIRM = /\bconfirm\b\s*[:=]?\s*true\b|\bconfirm(?:ation)? (?:is )?required\b/i;

const SKILL_ASKS_CONFIRM_HINT =
  "The skill itself refused to run without confirmation (see `message`); nothing failed in the service. Only if the user asked for what it does, run it again with the same arguments and `confirm: true` at the top level (next to `skill`): it reaches the skill's arguments too.";

const SKILL_FAILED_HINT =
  "The skill reported this failure itself, in its own words: read `message` (and `details.moreText` when it goes on there; `details.skillResult` holds the rest of its answer). If it names an argument or a missing value, fix that and run the skill again; if it passes on a service's error, or a verdict, tell the user what it said.";

function codeOf(result: Record<string, unknown>): ErrorCode {
  const inner = isPlainObject(result.error) ? result.error.code : undefined;
  const code = typeof result.code === "string" ? result.code : inner;
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "UPSTREAM_ERROR";
}

/** A skill's own `{isError: true}` answer as an error: its message already names the skill, so nothing is put in front. */
export class SkillReportedFailure extends RuntimeError {
  /** Whether the skill gave its own `hint` (its author knows what a partial run left behind). */
  authoredHint = false;
}

/**
 * A skill that answers `{isError: true, …}` has failed, as it would in the original runtime: the
 * answer becomes an error (its code when it names a known one, else UPSTREAM_ERROR), with what
 * the skill returned kept in `details.skillResult`. Undefined for any other answer.
 */
export function skillReportedFailure(skill: string, result: unknown, redact: (text: string) => string = (text) => text): RuntimeError | undefined {
  if (!isPlainObject(result) || result.isError !== true) return undefined;
  const said = messageOf(result);
  // The skill's own words are split as a tool's error text is (masked, then the first 2,000
  // characters in the message, the rest in `details.moreText`), and not repeated in skillResult.
  const { quote, rest } = said === undefined ? { quote: summaryOf(result, redact), rest: undefined } : splitQuote(said.text, redact);
  const code = codeOf(result);
  const own = typeof result.hint === "string" && result.hint.trim() ? result.hint.trim() : undefined;
  // A code the skill chose brings that code's hint; the generic UPSTREAM_ERROR one would blame the service.
  const hint = own ?? (said && ASKS_CONFIRM.test(said.text) ? SKILL_ASKS_CONFIRM_HINT : code === "UPSTREAM_ERROR" ? SKILL_FAILED_HINT : undefined);
  const details = { ...(rest === undefined ? {} : { [MORE_TEXT_FIELD]: rest }), skillResult: said?.rest ?? result };
  const failure = new SkillReportedFailure(code, `skill '${skill}' failed: ${quote}`, details, hint);
  failure.authoredHint = own !== undefined;
  return failure;
}
