import { isPlainObject } from "../plain-object.js";
import { echoed } from "./argument-value.js";
import { declaredPropertyNames } from "../schema-branches.js";
import { placeBodyFields } from "./body-fields.js";
import { unicodeFormNote } from "./similarity.js";
/**
 * Repairs of the malformed calls models really send. Each names what it changed in `repairs`;
 * none skips validation or the gate, which run after it. Two rules hold throughout:
 * - a repair never changes which plugin or which tool a call reaches (see facade/routing.ts);
 * - a `confirm` found anywhere but the top level of the request is never honoured: it is taken
 *   out, and the answer says where it belongs.
 */

export interface Repair {
  kind:
    | "unwrapped-nested-arguments"
    | "parsed-json-arguments"
    | "renamed-arguments"
    | "unwrapped-arguments-wrapper"
    | "moved-body-fields"
    | "dropped-misplaced-confirm"
    | "routed-facade-tool"
    | "matched-plugin-case"
    | "plugin-from-name"
    | "stripped-tool-prefix"
    | "matched-tool-case"
    | "matched-skill-case"
    | "shortened-query"
    | "read-query"
    | "read-limit"
    | "read-detail"
    | "moved-confirm"
    | "renamed-name-field"
    | "renamed-key"
    | "ignored-key"
    | "moved-stray-argument"
    | "undeclared-argument"
    | "matched-argument-form";
  message: string;
}

export type NameField = "toolName" | "skill";

/** A _call or _run_skill request after the schema-independent repairs. */
export interface RepairedRequest {
  /** The tool or skill as sent (trimmed), or undefined when absent or not a string. */
  name: string | undefined;
  /** What was in the name field, for the message when it is unusable. */
  nameSent: unknown;
  /** The tool's arguments ({} when none were sent). */
  arguments: unknown;
  /** `confirm: true` at the top level: the only place it is honoured. */
  confirm: boolean;
  /**
   * A top-level `confirm` that is not a JSON boolean (`"true"`, `"yes"`, `1`), as sent: not
   * honoured, but named in the CONFIRM_REQUIRED answer and part of the loop breaker's key.
   * Absent when `confirm` is a boolean, null or not sent.
   */
  confirmSent?: unknown;
  /** Where a confirm was found and not honoured ("arguments.confirm"). */
  misplacedConfirm?: string;
  /** The top-level keys received, for MISSING_TOOL_NAME. */
  keys: string[];
  /** Top-level keys nothing above read (stray-keys.ts places them once the schema is known). */
  stray?: Record<string, unknown>;
  /**
   * The top-level `args`/`params`/`input`/`parameters` read as `arguments`, as sent, with the
   * repairs that reading made: undone once the schema is known if the tool declares that key
   * (aliasDeclaredByTool), since it is then the tool's own argument.
   */
  argumentsAlias?: { key: string; value: unknown; repairs: Repair[] };
}

const ARGUMENT_ALIASES = ["args", "params", "input", "parameters"] as const;
/** What models send for `toolName` / `skill` (taken only when the field itself is absent and exactly one of these is a string). */
const NAME_ALIASES: Readonly<Record<NameField, readonly string[]>> = {
  // A skill's name sent to _call (or a tool's to _run_skill) is read so, and the answer then says
  // which facade tool has it (pipeline.ts, misdirected.ts): nothing is run elsewhere.
  toolName: ["tool", "tool_name", "toolname", "name", "tool-name", "skill"],
  skill: ["skill_name", "skillName", "skillname", "name", "toolName", "tool", "tool_name"],
};
/** The top-level keys a _call or _run_skill reads itself (`plugin` is routing's). */
const READ_KEYS = new Set(["arguments", "confirm", "plugin"]);

/** The one alias of a field `base` holds a usable value under, or undefined when none or several do (nothing is guessed). */
function soleAlias(base: Record<string, unknown>, aliases: readonly string[], usable: (value: unknown) => boolean): string | undefined {
  const present = aliases.filter((alias) => usable(base[alias]));
  return present.length === 1 ? present[0] : undefined;
}

/** A JSON object sent as a string is parsed; anything else is returned as it was. */
function parseJsonObject(value: unknown, field: string, repairs: Repair[] | undefined): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith("{")) return value;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (!isPlainObject(parsed)) return value;
    repairs?.push({ kind: "parsed-json-arguments", message: `'${field}' was a JSON string; it was parsed into an object` });
    return parsed;
  } catch {
    return value;
  }
}

/**
 * Why an `arguments` sent as a string could not be read as an object, for the refusal (the
 * failure path only: the parse is made again there, to have the parser's words and position):
 * Python-style quotes, a trailing comma, `tag=work`.
 */
export function unreadableArgumentsString(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text.trim());
    return `a string holding a JSON ${Array.isArray(parsed) ? "array" : parsed === null ? "null" : typeof parsed}`;
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    return `a string that did not parse as JSON (${echoed(said, 160)})`;
  }
}

export function repairRequest(raw: unknown, nameField: NameField, repairs: Repair[]): RepairedRequest {
  const parsed = parseJsonObject(raw, "request", repairs);
  let base: Record<string, unknown> = isPlainObject(parsed) ? parsed : {};
  let misplacedConfirm: string | undefined;

  // {arguments: {toolName, arguments}}: the whole request nested one level too deep.
  if (base[nameField] === undefined) {
    const inner = parseJsonObject(base.arguments, "arguments", undefined);
    const others = Object.keys(base).filter((k) => k !== "arguments" && k !== "confirm");
    if (isPlainObject(inner) && typeof inner[nameField] === "string" && others.length === 0) {
      repairs.push({ kind: "unwrapped-nested-arguments", message: `'${nameField}' and 'arguments' were nested inside 'arguments'; they were lifted one level up` });
      const { confirm: innerConfirm, ...lifted } = inner;
      if (innerConfirm !== undefined) misplacedConfirm = "arguments.confirm";
      base = { ...lifted, ...(base.confirm !== undefined ? { confirm: base.confirm } : {}) };
    }
  }

  // {args: {...}} / {params: {...}} / {input: {...}} for {arguments: {...}}.
  const argsAlias = base.arguments === undefined ? soleAlias(base, ARGUMENT_ALIASES, (value) => value !== undefined) : undefined;
  const repairsBefore = repairs.length;
  if (argsAlias) repairs.push({ kind: "renamed-arguments", message: `'${argsAlias}' was read as 'arguments'` });
  const args = parseJsonObject(argsAlias ? base[argsAlias] : base.arguments, "arguments", repairs);
  const argumentsAlias = argsAlias ? { key: argsAlias, value: base[argsAlias], repairs: repairs.slice(repairsBefore) } : undefined;

  // {tool: "x"} / {name: "x"} for {toolName: "x"}.
  const nameAlias = base[nameField] === undefined ? soleAlias(base, NAME_ALIASES[nameField], (value) => typeof value === "string" && value.trim() !== "") : undefined;
  if (nameAlias) repairs.push({ kind: "renamed-name-field", message: `'${nameAlias}' was read as '${nameField}'` });
  const sent = nameAlias ? base[nameAlias] : base[nameField];
  const name = typeof sent === "string" && sent.trim() ? sent.trim() : undefined;
  const keys = Object.keys(base);
  // Keys nothing here read: most calls have none, and then no object is made.
  let stray: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (key === nameField || READ_KEYS.has(key) || key === nameAlias || key === argsAlias) continue;
    (stray ??= {})[key] = base[key];
  }
  return {
    name,
    nameSent: sent,
    arguments: args === undefined || args === null ? {} : args,
    confirm: base.confirm === true,
    // Only a value that is neither absent nor a boolean costs anything here.
    ...(base.confirm !== undefined && base.confirm !== null && typeof base.confirm !== "boolean" ? { confirmSent: base.confirm } : {}),
    ...(misplacedConfirm ? { misplacedConfirm } : {}),
    keys,
    ...(stray ? { stray } : {}),
    ...(argumentsAlias ? { argumentsAlias } : {}),
  };
}

/**
 * The request with its `args`/`params`/`input`/`parameters` given back to the tool when the tool
 * declares that key (`parameters`: its parameter names): `{toolName, method, params: {...}}` for
 * a tool with `method` and `params` is those two arguments, not `params` read as `arguments`.
 * The repairs the alias reading made are taken back; the key is then placed like any other key
 * sent next to the name (stray-keys.ts). Otherwise the request as it is.
 */
export function aliasDeclaredByTool(request: RepairedRequest, parameters: readonly string[] | undefined, repairs: Repair[]): RepairedRequest {
  const alias = request.argumentsAlias;
  if (!alias || !parameters?.includes(alias.key)) return request;
  for (const made of alias.repairs) {
    const at = repairs.indexOf(made);
    if (at >= 0) repairs.splice(at, 1);
  }
  const { argumentsAlias: _undone, ...rest } = request;
  return { ...rest, arguments: {}, stray: { ...request.stray, [alias.key]: alias.value } };
}

/**
 * Repairs that need the tool's schema, applied to arguments that failed it (or carry a confirm):
 * a wrapper the schema does not know (`{arguments: {...}}`, `{args: {...}}` inside arguments) is
 * unwrapped, a request body sent one level off is placed where the tool takes it (body-fields.ts),
 * and a `confirm` the schema does not declare is taken out (never honoured there).
 */
export function repairArguments(
  args: Record<string, unknown>,
  schema: Record<string, unknown>,
  repairs: Repair[],
): { args: Record<string, unknown>; misplacedConfirm?: string } {
  // Read as the validator reads it: names under a top-level `$ref` or `allOf` are declared too.
  const properties = new Set(declaredPropertyNames(schema, schema));
  let current = args;
  let where = "arguments";
  let misplacedConfirm: string | undefined;
  for (let depth = 0; depth < 3; depth++) {
    if ("confirm" in current && !properties.has("confirm")) {
      const { confirm: _dropped, ...rest } = current;
      current = rest;
      misplacedConfirm = `${where}.confirm`;
    }
    const keys = Object.keys(current);
    const wrapper = keys.length === 1 ? keys[0] : undefined;
    if (!wrapper || properties.has(wrapper) || !(["arguments", ...ARGUMENT_ALIASES] as string[]).includes(wrapper)) break;
    const inner = parseJsonObject(current[wrapper], `${where}.${wrapper}`, repairs);
    if (!isPlainObject(inner)) break;
    repairs.push({ kind: "unwrapped-arguments-wrapper", message: `'${where}' held its content inside '${wrapper}'; the inner object was used` });
    current = inner;
    where = `${where}.${wrapper}`;
  }
  // A schema that declares nothing (a skill without one) says nothing of where a body goes.
  if (properties.size) current = placeBodyFields(matchNameForms(current, properties, repairs), schema, properties, where, repairs);
  return { args: current, ...(misplacedConfirm ? { misplacedConfirm } : {}) };
}

/**
 * An argument whose name differs from a declared one only in its Unicode form (`cafe\u0301`, with
 * a combining accent, for `café`) is read as that one, said in `repairs` as a tool name so
 * matched is: the two look the same, so "did you mean 'café'?" would not say what to change. Not
 * when the declared one was sent too. A call whose names are all declared pays one lookup each.
 */
function matchNameForms(args: Record<string, unknown>, properties: ReadonlySet<string>, repairs: Repair[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(args)) {
    if (properties.has(key)) continue;
    const composed = key.normalize("NFC");
    const meant = [...properties].find((name) => name.normalize("NFC") === composed);
    if (meant === undefined || Object.hasOwn(out ?? args, meant)) continue;
    out ??= { ...args };
    out[meant] = out[key];
    delete out[key];
    repairs.push({ kind: "matched-argument-form", message: `argument '${echoed(key)}' was matched to '${meant}'${unicodeFormNote(key, meant)}` });
  }
  return out ?? args;
}

/**
 * A tool name sent with its plugin's prefix ("github_list_issues", "github.list_issues",
 * "github:list_issues", or a front end's full tool name ending in "github_list_issues") is reduced
 * to the bare name when that name exists. The prefix must start the name or follow a `_`.
 */
export function stripToolPrefix(name: string, prefix: string, exists: (candidate: string) => boolean, repairs: Repair[], kind: "tool" | "skill" = "tool"): string | undefined {
  const lower = name.toLowerCase();
  for (const separator of ["__", "_", ".", ":", "/"]) {
    const form = `${prefix.toLowerCase()}${separator}`;
    for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + 1)) {
      if (at > 0 && lower[at - 1] !== "_") continue;
      const bare = name.slice(at + form.length);
      if (bare && exists(bare)) {
        repairs.push({ kind: "stripped-tool-prefix", message: `${kind} name '${name}' carried the plugin prefix; ${kind === "tool" ? "called" : "ran"} '${bare}'` });
        return bare;
      }
    }
  }
  return undefined;
}
