import type { OperationContext, Runtime } from "../runtime/runtime.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import type { Session } from "../runtime/session.js";
import type { OperationResult } from "../runtime/answers.js";
import type { FlagTexts, ParsedNamedCall } from "./argv.js";

/**
 * A tool call made from a command line's words (plugin commands and the module commands' `…-call`
 * alike). Flags are typed before the tool is known (argv.ts), so `--message 1.0` is the number 1
 * and `--assignee 123` the number 123; here, for a parameter the tool's schema types as a string
 * (and not as what the text was read as), the flag's text is sent as written: the schema knows
 * best. A call that still fails validation gets a note naming each flag that was read as another
 * type than the schema wants, or that had no value, and how to write it.
 */

type Call = Extract<ParsedNamedCall, { ok: true }>;

export interface FlagCallResult {
  outcome: OperationResult;
  /** Appended to the command's error line, when the failure concerns how flags were read. */
  note?: string;
}

function typesOf(schema: unknown): string[] {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether `types` accepts `value`'s JSON type (an integer is a number too). */
function accepts(types: readonly string[], value: unknown): boolean {
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

async function propertiesOf(runtime: Runtime, session: Session, target: string | LoadedPlugin, toolName: string, ctx: OperationContext): Promise<Record<string, unknown>> {
  const described = await runtime.describe(session, target, toolName, ctx).catch(() => undefined);
  if (!described || described.isError) return {};
  const schema = (described.payload as { tool?: { inputSchema?: { properties?: unknown } } }).tool?.inputSchema;
  const properties = schema?.properties;
  return properties && typeof properties === "object" ? (properties as Record<string, unknown>) : {};
}

/** `args` with each typed flag the schema wants as a string put back to its text. */
function asSchemaWants(args: Record<string, unknown>, typed: Readonly<Record<string, string>>, properties: Record<string, unknown>): Record<string, unknown> {
  const out = { ...args };
  for (const [name, text] of Object.entries(typed)) {
    const types = typesOf(properties[name]);
    if (types.includes("string") && !accepts(types, args[name])) out[name] = text;
  }
  return out;
}

/** Which flags a validation failure names, said with how each was read and how to write it. */
function flagNote(outcome: OperationResult, args: Record<string, unknown>, flags: FlagTexts): string | undefined {
  const error = (outcome.payload as { error?: { code?: string; details?: { errors?: Array<{ path?: string }> } } }).error;
  if (!outcome.isError || error?.code !== "ARG_VALIDATION_FAILED") return undefined;
  const named = new Set((error.details?.errors ?? []).map((e) => String(e.path ?? "").split("/")[1] ?? "").filter(Boolean));
  const notes: string[] = [];
  for (const name of named) {
    const text = flags.typed[name];
    if (text !== undefined && args[name] !== text) notes.push(`--${name} ${text} was read as ${jsonType(args[name])} ${JSON.stringify(args[name])}; for the text write --${name} '${JSON.stringify(text)}'`);
    else if (flags.inexact.includes(name)) notes.push(`--${name} ${String(args[name])} was sent as text: a number that large or that precise does not survive as a JSON number (beyond ±1.8e308, or an integer past 2^53); give one in range`);
    else if (flags.bare.includes(name)) notes.push(`--${name} had no value (the next word was another flag, or none), so it was read as true; give its value right after it`);
  }
  return notes.length ? `(${notes.join("; ")})` : undefined;
}

export async function callFromWords(runtime: Runtime, session: Session, target: string | LoadedPlugin, call: Call, ctx: OperationContext): Promise<FlagCallResult> {
  let args = call.args;
  if (call.flags && Object.keys(call.flags.typed).length) args = asSchemaWants(args, call.flags.typed, await propertiesOf(runtime, session, target, call.name, ctx));
  const outcome = await runtime.call(session, target, { toolName: call.name, arguments: args, ...(call.confirm ? { confirm: true } : {}) }, ctx);
  const note = call.flags ? flagNote(outcome, args, call.flags) : undefined;
  return { outcome, ...(note ? { note } : {}) };
}
