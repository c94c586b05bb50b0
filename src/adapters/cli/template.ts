import { referenceSpans } from "../shared/env-vars.js";
import { loneSurrogateProblem } from "../shared/lone-surrogate.js";
import { CliError, CliSpecError } from "./errors.js";
import { fieldProblem, type SpecProblem } from "../shared/spec-check.js";

/**
 * argv templates. Each template item becomes exactly one argv item (never split, never passed to a
 * shell) after its `{name}` placeholders are replaced by the argument's string value; a
 * placeholder may be part of an item ("{owner}/{repo}", "--limit={limit}").
 *
 *  - Option injection: in a positional item (one whose template does not start with "-") a value
 *    beginning with "-" is refused, naming the argument. Items after a literal "--" item (the
 *    end-of-options marker) are exempt, because the program reads them as operands.
 *  - Arrays expand only where declared with a spread placeholder `{name...}`: in `argv` the item
 *    repeats once per element ("{files...}" → one item per file); in an `optional` group the whole
 *    group repeats ("labels": ["--label", "{labels...}"] → --label a --label b). An array passed to
 *    a plain placeholder is refused.
 *  - `optional` groups: `{ "limit": ["--limit", "{limit}"] }` — the group is emitted when the
 *    argument named by its key is present (not undefined/null/false) and dropped otherwise. A group
 *    without placeholders is a flag (`"draft": ["--draft"]`) emitted when the argument is `true`.
 *    A group may use its own key and argv's placeholders only. Groups are placed before the first
 *    literal "--" of argv, or at the end when there is none.
 *  - Values: strings as they are; finite numbers and booleans as String(value); objects and NUL
 *    bytes are refused.
 *  - Host variables: the plugin author's own text may hold `${VAR}` (`["--token", "${GH_TOKEN}"]`),
 *    resolved from the host at each call (withHostValues), as the block's `env` is; `$${` is a
 *    literal `${`. A `{…}` inside a reference, or right after a `$`, is never a placeholder, so no
 *    host variable becomes an argument the model is asked for. Only the template's literal text is
 *    resolved: an argument's value is put in afterwards, as it is, never read for `${…}`.
 */

export type TemplatePart = { literal: string } | { arg: string; spread: boolean };

export interface TemplateItem {
  raw: string;
  /** Where it is written ("adapter.tools[0].argv[1]"): an unset host variable it reads names it. */
  field: string;
  parts: TemplatePart[];
  /** The template item itself is an option ("-x", "--limit={limit}"): values may begin with "-". */
  option: boolean;
  /** After a literal "--": operands, exempt from the option-injection check. */
  operand: boolean;
}

export interface OptionalGroup {
  arg: string;
  items: TemplateItem[];
  /** No placeholders: a flag emitted when the argument is true. */
  flag: boolean;
  /** Uses `{arg...}`: the group repeats per element. */
  spread: boolean;
}

export interface ArgvTemplate {
  items: TemplateItem[];
  optional: OptionalGroup[];
  /** Index in `items` before which optional groups go. */
  optionalAt: number;
  /** Placeholders of `items`, in order of first appearance (required arguments). */
  required: { arg: string; spread: boolean }[];
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)(\.\.\.)?\}/g;
const END_OF_OPTIONS = "--";

/** Parse one item; what is wrong with it is added to `problems` (the item is still returned, for the checks after it). */
function parseItem(raw: string, operand: boolean, field: string, problems: SpecProblem[]): TemplateItem {
  if (raw.includes("\0")) problems.push(fieldProblem(field, "holds a NUL byte"));
  const parts: TemplatePart[] = [];
  let last = 0;
  let spreads = 0;
  const references = referenceSpans(raw);
  for (const match of raw.matchAll(PLACEHOLDER)) {
    const index = match.index;
    // `${NAME}`'s braces and an escaped `$${`'s are the host's text, not an argument's place.
    if (raw[index - 1] === "$" || references.some((r) => index > r.start && index < r.end)) continue;
    if (index > last) parts.push({ literal: raw.slice(last, index) });
    const spread = match[2] !== undefined;
    if (spread) spreads += 1;
    parts.push({ arg: match[1] ?? "", spread });
    last = index + match[0].length;
  }
  if (last < raw.length) parts.push({ literal: raw.slice(last) });
  if (spreads > 1) problems.push(fieldProblem(field, `'${raw}' has more than one {name...} placeholder`));
  return { raw, field, parts, option: raw.startsWith("-"), operand };
}

/** The placeholders of `items` in order of first use; an argument used both plain and spread is a problem at the item that uses it the second way. */
function placeholders(items: readonly TemplateItem[], problems: SpecProblem[]): { arg: string; spread: boolean }[] {
  const out: { arg: string; spread: boolean }[] = [];
  const mixed = new Set<string>();
  for (const item of items) {
    for (const part of item.parts) {
      if (!("arg" in part)) continue;
      const seen = out.find((p) => p.arg === part.arg);
      if (seen && seen.spread !== part.spread && !mixed.has(part.arg)) {
        mixed.add(part.arg);
        problems.push(fieldProblem(item.field, `'${item.raw}' uses '${part.arg}' both as {${part.arg}} and {${part.arg}...}`));
      }
      if (!seen) out.push({ arg: part.arg, spread: part.spread });
    }
  }
  return out;
}

/** Items of `value` (argv, or an optional group) as template items; a non-string is a problem at its index. */
function parseItems(value: readonly unknown[], field: string, problems: SpecProblem[], endsOptions: boolean): { items: TemplateItem[]; optionsEnd: number } {
  let operand = false;
  let optionsEnd = -1;
  const items: TemplateItem[] = [];
  value.forEach((raw, i) => {
    if (typeof raw !== "string") return void problems.push(fieldProblem(`${field}[${i}]`, "must be a string"));
    items.push(parseItem(raw, operand, `${field}[${i}]`, problems));
    if (endsOptions && raw === END_OF_OPTIONS && !operand) {
      operand = true;
      optionsEnd = items.length - 1;
    }
  });
  return { items, optionsEnd };
}

/**
 * Parse and check a tool's `argv` and `optional` (field names the tool, e.g. "tools[0]"). Every
 * problem of the template is reported at once, each naming its item (`tools[0].argv[2]`,
 * `tools[0].optional.limit`): an author fixes them in one pass, not one per validate run.
 */
export function parseArgvTemplate(argv: unknown, optional: unknown, field: string): ArgvTemplate {
  if (!Array.isArray(argv)) throw new CliSpecError(`${field}.argv`, "must be an array of strings");
  const problems: SpecProblem[] = [];
  const { items, optionsEnd } = parseItems(argv, `${field}.argv`, problems, true);
  const required = placeholders(items, problems);
  const groups: OptionalGroup[] = [];
  if (optional !== undefined && (optional === null || typeof optional !== "object" || Array.isArray(optional))) {
    problems.push(fieldProblem(`${field}.optional`, "must be an object { argument: [argv items] }"));
  } else if (optional !== undefined) {
    for (const [arg, value] of Object.entries(optional as Record<string, unknown>)) {
      const group = parseGroup(arg, value, `${field}.optional.${arg}`, required, problems);
      if (group) groups.push(group);
    }
  }
  if (problems.length) throw new CliSpecError(problems);
  return { items, optional: groups, optionalAt: optionsEnd === -1 ? items.length : optionsEnd, required };
}

/** One `optional` group, checked against argv's placeholders; undefined when it cannot be read as a group at all. */
function parseGroup(arg: string, value: unknown, where: string, required: readonly { arg: string }[], problems: SpecProblem[]): OptionalGroup | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(arg)) problems.push(fieldProblem(where, "is not a valid argument name (letters, digits, '_')"));
  if (required.some((p) => p.arg === arg)) problems.push(fieldProblem(where, `'${arg}' is also a placeholder of argv, where it is required`));
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(fieldProblem(where, "must be a non-empty array of strings"));
    return undefined;
  }
  const { items } = parseItems(value, where, problems, false);
  const used = placeholders(items, problems);
  for (const p of used) {
    if (p.arg === arg) continue;
    if (!required.some((r) => r.arg === p.arg)) problems.push(fieldProblem(where, `uses {${p.arg}}, which is neither '${arg}' nor a placeholder of argv`));
    else if (p.spread) problems.push(fieldProblem(where, `spreads {${p.arg}...}, but a group may only spread its own argument '${arg}'`));
  }
  const own = used.find((p) => p.arg === arg);
  return { arg, items, flag: own === undefined, spread: own?.spread ?? false };
}

/**
 * The template with its literal text's `${VAR}`s resolved by `resolve` (the host's values, at
 * call time; it throws for an unset one, naming `field`), before any argument is put in: what an
 * argument's value holds is never resolved.
 */
export function withHostValues(template: ArgvTemplate, resolve: (text: string, field: string) => string): ArgvTemplate {
  const resolved = (item: TemplateItem): TemplateItem => ({ ...item, parts: item.parts.map((part) => ("literal" in part ? { literal: resolve(part.literal, item.field) } : part)) });
  return { ...template, items: template.items.map(resolved), optional: template.optional.map((group) => ({ ...group, items: group.items.map(resolved) })) };
}

function invalid(arg: string, problem: string): CliError {
  return new CliError("ARG_VALIDATION_FAILED", `argument '${arg}' ${problem}`, { argument: arg });
}

/** One scalar argument value as argv text. */
export function scalarText(arg: string, value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
  else if (typeof value === "boolean") text = String(value);
  else if (Array.isArray(value)) throw invalid(arg, "is an array, but the template does not declare it as repeated ({" + arg + "...})");
  else throw invalid(arg, `must be a string or a number (got ${value === null ? "null" : typeof value})`);
  if (text.includes("\0")) throw invalid(arg, "holds a NUL byte");
  const unsendable = loneSurrogateProblem(text);
  if (unsendable) throw invalid(arg, unsendable);
  return text;
}

function elements(arg: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid(arg, "must be an array (it is repeated: {" + arg + "...})");
  return value.map((v, i) => scalarText(`${arg}[${i}]`, v));
}

function renderItem(item: TemplateItem, values: Readonly<Record<string, string>>, spread: { text: string; name: string } | undefined): string {
  let out = "";
  for (const part of item.parts) {
    if ("literal" in part) {
      out += part.literal;
      continue;
    }
    const text = part.spread ? spread?.text : values[part.arg];
    const name = part.spread ? (spread?.name ?? part.arg) : part.arg;
    if (text === undefined) throw invalid(part.arg, "is required");
    if (!item.option && !item.operand && text.startsWith("-")) {
      throw invalid(name, `begins with '-' (${JSON.stringify(text.slice(0, 20))}) and would be read as an option in the positional argv item '${item.raw}'; refused`);
    }
    out += text;
  }
  return out;
}

function spreadOf(item: TemplateItem): string | undefined {
  for (const part of item.parts) if ("arg" in part && part.spread) return part.arg;
  return undefined;
}

function renderItems(items: readonly TemplateItem[], values: Readonly<Record<string, string>>, lists: Readonly<Record<string, string[]>>): string[] {
  const out: string[] = [];
  for (const item of items) {
    const spread = spreadOf(item);
    if (spread === undefined) out.push(renderItem(item, values, undefined));
    else (lists[spread] ?? []).forEach((text, i) => out.push(renderItem(item, values, { text, name: `${spread}[${i}]` })));
  }
  return out;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** The arguments a template puts into argv: its placeholders, then its optional groups'. */
export function templateArguments(template: ArgvTemplate): string[] {
  return [...new Set([...template.required.map((p) => p.arg), ...template.optional.map((g) => g.arg)])];
}

/** The argv for one call. Throws CliError ARG_VALIDATION_FAILED naming the argument at fault. */
export function renderArgv(template: ArgvTemplate, args: Readonly<Record<string, unknown>>): string[] {
  const values: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  for (const { arg, spread } of template.required) {
    const value = args[arg];
    if (isAbsent(value)) throw invalid(arg, "is required");
    if (spread) lists[arg] = elements(arg, value);
    else values[arg] = scalarText(arg, value);
  }
  const optional: string[] = [];
  for (const group of template.optional) {
    const value = args[group.arg];
    if (isAbsent(value) || value === false) continue;
    if (group.flag) {
      if (value !== true) throw invalid(group.arg, "is a flag: pass true or false");
      optional.push(...renderItems(group.items, values, lists));
    } else if (group.spread) {
      elements(group.arg, value).forEach((element, i) => {
        try {
          optional.push(...renderItems(group.items, values, { ...lists, [group.arg]: [element] }));
        } catch (error) {
          // name the element, not the one-element list it was rendered from
          if (error instanceof CliError && error.argument === `${group.arg}[0]`) throw invalid(`${group.arg}[${i}]`, error.message.replace(/^argument '[^']*' /, ""));
          throw error;
        }
      });
    } else {
      optional.push(...renderItems(group.items, { ...values, [group.arg]: scalarText(group.arg, value) }, lists));
    }
  }
  const before = renderItems(template.items.slice(0, template.optionalAt), values, lists);
  const after = renderItems(template.items.slice(template.optionalAt), values, lists);
  return [...before, ...optional, ...after];
}
