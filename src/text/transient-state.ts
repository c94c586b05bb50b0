import type { ScriptNode, WordNode } from "just-bash";

/**
 * What a command line defines that the next call will not have. just-bash's `exec` answers only
 * the scalar variables it ended with (`result.env`) and starts every call with no arrays and no
 * functions, and nothing in its public API reads them out; so the session carries scalars
 * (aliases too: just-bash keeps them as `BASH_ALIAS_…` variables), shell options (answered in
 * `SHELLOPTS`/`BASHOPTS`, shell-options.ts), the directory and files, and a line that defines an
 * array or a function is told,
 * in its answer, that it holds for this call only. Read from the parsed line, before it runs:
 * only what is written out literally is seen (`declare -a "$name"`, `eval`, `source` are not),
 * so the note is never wrong about what it names, and a line that names none gets no note.
 */

export interface TransientDefinitions {
  arrays: string[];
  functions: string[];
}

/** The word's text when it is written out literally (plain or quoted), else undefined. */
function literal(word: WordNode | null | undefined): string | undefined {
  if (!word) return undefined;
  let text = "";
  for (const part of word.parts as unknown as Array<Record<string, unknown>>) {
    if ((part.type === "Literal" || part.type === "SingleQuoted" || part.type === "Escaped") && typeof part.value === "string") text += part.value;
    else if (part.type === "DoubleQuoted" && Array.isArray(part.parts) && part.parts.every((p: Record<string, unknown>) => p.type === "Literal")) text += part.parts.map((p: Record<string, unknown>) => String(p.value)).join("");
    else return undefined;
  }
  return text;
}

const ARRAY_DECLARERS = new Set(["declare", "typeset", "local", "readonly", "export"]);

/** The variable a `declare` word names: `m` of `m=([k]=v)` (which holds a glob part), of `m[1]=x` or of `m`. */
function declaredName(word: WordNode): string | undefined {
  const first = word.parts[0] as unknown as { type: string; value?: unknown } | undefined;
  if (first?.type !== "Literal" || typeof first.value !== "string") return undefined;
  return /^([A-Za-z_][A-Za-z0-9_]*)(?=$|=|\[|\+=)/.exec(first.value)?.[1];
}

function simpleCommand(node: Record<string, unknown>, found: TransientDefinitions): void {
  for (const assignment of (node.assignments ?? []) as Array<{ name: string; array: unknown }>) {
    // `a=(x y)`, `a+=(z)`, `a[1]=x`
    if (assignment.array || assignment.name.includes("[")) found.arrays.push(assignment.name.replace(/\[.*$/s, ""));
  }
  const name = literal(node.name as WordNode | null);
  if (!name) return;
  const words = (node.args ?? []) as WordNode[];
  const args = words.map(literal);
  const flags = args.filter((a): a is string => !!a && /^[-+][A-Za-z]/.test(a));
  const named = words.filter((w, i) => !/^[-+]/.test(args[i] ?? "")).map(declaredName).filter((n): n is string => !!n);
  if (ARRAY_DECLARERS.has(name) && flags.some((f) => f.startsWith("-") && /[aA]/.test(f))) found.arrays.push(...named);
  else if (name === "readarray" || name === "mapfile") found.arrays.push(named.at(-1) ?? "MAPFILE");
  else if (name === "read") {
    // `read -a NAME`, `read -ra NAME`: the word after the flag that holds `a`.
    const at = args.findIndex((a) => !!a && /^-[A-Za-z]*a$/.test(a));
    const target = at >= 0 ? args[at + 1] : undefined;
    if (target) found.arrays.push(target);
  }
}

/** Every definition of an array or function written literally anywhere in the line (loops, `if`, groups, function bodies). */
export function transientDefinitions(script: ScriptNode): TransientDefinitions {
  const found: TransientDefinitions = { arrays: [], functions: [] };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== "object") return;
    const node = value as Record<string, unknown>;
    if (node.type === "FunctionDef" && typeof node.name === "string") found.functions.push(node.name);
    else if (node.type === "SimpleCommand") simpleCommand(node, found);
    for (const child of Object.values(node)) if (child && typeof child === "object") visit(child);
  };
  visit(script.statements);
  return {
    arrays: [...new Set(found.arrays)],
    functions: [...new Set(found.functions)],
  };
}

/** One line for the answer, or undefined when the line defines none of them. */
export function transientNote(found: TransientDefinitions): string | undefined {
  const list = (one: string, many: string, names: string[]): string[] => (names.length ? [`${names.length > 1 ? many : one} ${names.slice(0, 5).join(", ")}${names.length > 5 ? ` and ${names.length - 5} more` : ""}`] : []);
  const parts = [...list("the array", "the arrays", found.arrays), ...list("the function", "the functions", found.functions)];
  if (!parts.length) return undefined;
  return `not kept for the next call: ${parts.join("; ")}. Between calls the session keeps scalar variables, shell options, the working directory and files, not arrays or functions: define them again in the call that uses them (e.g. write them to a file once and \`source\` it)`;
}
