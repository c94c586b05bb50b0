import type { OperationContext, Runtime } from "../runtime/runtime.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import type { Session } from "../runtime/session.js";
import type { OperationResult } from "../runtime/answers.js";
import { isPlainObject } from "../plain-object.js";
import { declaredPropertyNames, followRef, jsonType, typesOf } from "../schema-branches.js";
import { isSchemaLike } from "../plugins/skill-args.js";
import { shorten, type FlagTexts, type ParsedNamedCall } from "./argv.js";

/**
 * A tool call or skill run made from a command line's words (plugin commands' `call` and `skill`,
 * and the module commands' `…-call`, alike). Flags are typed before the tool is known (argv.ts), so `--message 1.0` is the number 1,
 * `--assignee 123` the number 123 and `--title '[1]'` an array; here, for a parameter the tool's
 * schema types as a string (in any branch: `Optional[str]` is an anyOf with null, a `$ref` may
 * name it) and not as what the text was read as, the flag's text is sent as written: the schema
 * knows best. A call that still fails validation gets a note naming each flag that was read as
 * another type than the schema wants, kept as text while it looked like JSON, or had no value, and
 * how to write it.
 */

type Call = Extract<ParsedNamedCall, { ok: true }>;

/** What the words name: a tool (`call TOOL`) or a skill (`skill NAME`); the flags are read alike. */
export type WordsTarget = "tool" | "skill";

/** A skill's `--help` answer: what agent_tools_help says of a skill, with its whole args. */
interface SkillUsage {
  isError: false;
  payload: { ok: true; plugin: string; skill: { name: string; description: string; args?: unknown } };
}

export interface FlagCallResult {
  outcome: OperationResult | SkillUsage;
  /** Appended to the command's error line, when the failure concerns how flags were read. */
  note?: string;
}

/** The tool's input schema and its parameters' schemas (empty when the tool cannot be described). */
interface Parameters {
  root: Record<string, unknown>;
  properties: Record<string, unknown>;
}

/** Whether `types` accepts `value`'s JSON type (an integer is a number too). */
function accepts(types: readonly string[], value: unknown): boolean {
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** The plugin's skill of that name (a skill is the plugin's own: no backend is asked). */
function skillOf(runtime: Runtime, target: string | LoadedPlugin, name: string) {
  const plugin = typeof target === "string" ? runtime.plugin(target) : target;
  const skill = plugin?.skills.find((s) => s.name === name);
  return plugin && skill ? { prefix: plugin.manifest.prefix, skill } : undefined;
}

/** The input schema of the tool, or of the skill when its `meta.args` is one (a name map or a sentence types nothing). */
async function inputSchemaOf(runtime: Runtime, session: Session, target: string | LoadedPlugin, kind: WordsTarget, name: string, ctx: OperationContext): Promise<unknown> {
  if (kind === "skill") {
    const args = skillOf(runtime, target, name)?.skill.meta.args;
    return isSchemaLike(args) ? args : undefined;
  }
  const described = await runtime.describe(session, target, name, ctx).catch(() => undefined);
  return described && !described.isError ? (described.payload as { tool?: { inputSchema?: unknown } }).tool?.inputSchema : undefined;
}

async function parametersOf(runtime: Runtime, session: Session, target: string | LoadedPlugin, kind: WordsTarget, name: string, ctx: OperationContext): Promise<Parameters> {
  const schema = await inputSchemaOf(runtime, session, target, kind, name, ctx);
  if (!isPlainObject(schema)) return { root: {}, properties: {} };
  // A whole input schema that is a $ref ({"$ref": "#/$defs/Args", "$defs": …}) has its properties where that points.
  const followed = followRef(schema, schema);
  return { root: schema, properties: followed && isPlainObject(followed.properties) ? followed.properties : {} };
}

/** `args` with each typed flag the schema wants as a string put back to its text. */
function asSchemaWants(args: Record<string, unknown>, typed: Readonly<Record<string, string>>, { root, properties }: Parameters): Record<string, unknown> {
  const out = { ...args };
  for (const [name, text] of Object.entries(typed)) {
    const types = typesOf(root, properties[name]);
    if (types.includes("string") && !accepts(types, args[name])) out[name] = text;
  }
  return out;
}

/** How to write a value of these types as JSON in a flag, for a text that did not parse. */
function jsonExample(name: string, types: readonly string[]): string {
  if (types.includes("array")) return `--${name} '["a","b"]'`;
  if (types.includes("object")) return `--${name} '{"key":"value"}'`;
  return `--${name} '<valid JSON>'`;
}

/**
 * `--labels '["bug"]'` for a single value given to a list parameter: that value as the one item,
 * as its text where the items are strings (`--labels 7` is `'["7"]'`), quotes escaped for the shell.
 */
function listFlag(name: string, value: unknown, text: string | undefined, itemTypes: readonly string[]): string {
  const item = text !== undefined && itemTypes.includes("string") && !accepts(itemTypes, value) ? text : value;
  return `--${name} '${JSON.stringify([item]).replaceAll("'", "'\\''")}'`;
}

/** The types a list parameter's items take (empty when its schema does not say). */
function itemTypesOf(root: Record<string, unknown>, parameter: unknown): string[] {
  return typesOf(root, isPlainObject(parameter) ? parameter.items : undefined);
}

/** Which flags a validation failure names, said with how each was read and how to write it. */
function flagNote(outcome: OperationResult, args: Record<string, unknown>, flags: FlagTexts, { root, properties }: Parameters): string | undefined {
  const error = (outcome.payload as { error?: { code?: string; details?: { errors?: Array<{ path?: string }> } } }).error;
  if (!outcome.isError || error?.code !== "ARG_VALIDATION_FAILED") return undefined;
  const named = new Set((error.details?.errors ?? []).map((e) => String(e.path ?? "").split("/")[1] ?? "").filter(Boolean));
  const notes: string[] = [];
  for (const name of named) {
    const text = flags.typed[name];
    const types = typesOf(root, properties[name]);
    const unparsed = flags.unparsed[name];
    const written = flags.written[name];
    // Writing it as text helps only where the parameter takes a string: '--perPage "500"' fails a number's maximum again.
    if (text !== undefined && args[name] !== text && types.includes("string")) notes.push(`--${name} ${text} was read as ${jsonType(args[name])} ${JSON.stringify(args[name])}; for the text write --${name} '${JSON.stringify(text)}'`);
    else if (unparsed !== undefined && types.length && !types.includes("string")) notes.push(`--${name} '${shorten(String(args[name]))}' looks like JSON but does not parse (${unparsed}), so it was sent as text, and '${name}' takes no string: write it as valid JSON in single quotes, e.g. ${jsonExample(name, types)}`);
    else if (written !== undefined && !Array.isArray(args[name]) && types.includes("array") && !accepts(types, args[name])) notes.push(`--${name} ${shorten(written)} was sent as ${jsonType(args[name])}, and '${name}' takes a list: write it as a JSON array in single quotes, ${listFlag(name, args[name], written, itemTypesOf(root, properties[name]))}`);
    else if (written !== undefined && typeof args[name] === "string" && types.includes("object") && !types.includes("string")) notes.push(`--${name} ${shorten(written)} was sent as text, and '${name}' takes an object: write it as JSON in single quotes, e.g. ${jsonExample(name, ["object"])}`);
    else if (flags.inexact.includes(name)) notes.push(`--${name} ${String(args[name])} was sent as text: a number that large or that precise does not survive as a JSON number (beyond ±1.8e308, or an integer past 2^53); give one in range`);
    else if (flags.bare.includes(name)) notes.push(`--${name} had no value (the next word was another flag, or none), so it was read as true; give its value right after it`);
  }
  return notes.length ? `(${notes.join("; ")})` : undefined;
}

/**
 * `TOOL --help` (or `skill NAME --help`) alone, for one that takes no `help` parameter: the caller
 * asks how to call it, so the answer is its description and schema (for a tool what discover with
 * detail shows; for a skill what agent_tools_help says of it, with its whole args), and nothing is
 * run. A bare flag is otherwise `true`, and a read tool would have been called.
 */
async function usageAsked(runtime: Runtime, session: Session, target: string | LoadedPlugin, kind: WordsTarget, call: Call, ctx: OperationContext): Promise<FlagCallResult["outcome"] | undefined> {
  const names = Object.keys(call.args);
  if (!call.flags?.bare.includes("help") || names.length !== 1 || names[0] !== "help") return undefined;
  if (kind === "skill") {
    // An unknown skill is left to the run, whose error names the skills there are.
    const found = skillOf(runtime, target, call.name);
    if (!found) return undefined;
    const { prefix, skill } = found;
    if (isSchemaLike(skill.meta.args) && declaredPropertyNames(skill.meta.args, skill.meta.args)?.includes("help")) return undefined;
    const args = skill.meta.args === undefined ? {} : { args: skill.meta.args };
    return { isError: false, payload: { ok: true, plugin: prefix, skill: { name: skill.name, description: skill.meta.description, ...args } } };
  }
  const described = await runtime.describe(session, target, call.name, ctx).catch(() => undefined);
  if (!described || described.isError) return described;
  const schema = (described.payload as { tool?: { inputSchema?: unknown } }).tool?.inputSchema;
  if (isPlainObject(schema) && declaredPropertyNames(schema, schema)?.includes("help")) return undefined;
  return described;
}

export async function callFromWords(runtime: Runtime, session: Session, target: string | LoadedPlugin, call: Call, ctx: OperationContext, kind: WordsTarget = "tool"): Promise<FlagCallResult> {
  const usage = await usageAsked(runtime, session, target, kind, call, ctx);
  if (usage) return { outcome: usage };
  let args = call.args;
  const flags = call.flags;
  const needed = flags && (Object.keys(flags.typed).length > 0 || Object.keys(flags.unparsed).length > 0);
  let parameters = needed ? await parametersOf(runtime, session, target, kind, call.name, ctx) : undefined;
  if (flags && parameters && Object.keys(flags.typed).length) args = asSchemaWants(args, flags.typed, parameters);
  const confirm = call.confirm ? { confirm: true } : {};
  const outcome =
    kind === "skill"
      ? await runtime.runSkill(session, target, { skill: call.name, arguments: args, ...confirm }, ctx)
      : await runtime.call(session, target, { toolName: call.name, arguments: args, ...confirm }, ctx);
  // A plain word the schema wants as a list (--labels bug) is only known wrong once refused: its schema is read then, for the note.
  if (flags && !parameters && outcome.isError && (outcome.payload as { error?: { code?: string } }).error?.code === "ARG_VALIDATION_FAILED") parameters = await parametersOf(runtime, session, target, kind, call.name, ctx);
  const note = flags && parameters ? flagNote(outcome, args, flags, parameters) : undefined;
  return { outcome, ...(note ? { note } : {}) };
}
