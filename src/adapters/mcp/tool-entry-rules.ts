/**
 * What the runtime refuses in a downstream server's tools/list entry although the SDK's check
 * takes it: rules that keep a third-party server from putting what it likes in front of the
 * model, the user and the runtime's own walks.
 *  - A tool name with a control character (a newline, BEL, an escape sequence) or longer than
 *    MCP's 128 characters. MCP's naming rule (SEP-986, the SDK's validateToolName) says a name
 *    SHOULD be 1–128 of `A-Za-z0-9_.-`; only what can do harm is refused: a control character
 *    forges lines and rewrites terminals wherever the name is shown, and a 10,000-character name
 *    was returned whole, twice, in every discover answer. Names with other characters (a space,
 *    a slash) are served, as real servers use them.
 *  - An entry nested deeper than MAX_ENTRY_DEPTH. The SDK's own check of a 1,000-level schema
 *    overflowed the stack, which read as "does not match the MCP Tool shape"; and every walk of
 *    the runtime after it (the redactor, the search index, argument validation) recurses too. A
 *    real schema is a few levels deep (deep types go through `$ref`).
 *  - An entry whose `enum` lists hold more than MAX_ENUM_VALUES values in all. Each is compiled
 *    into the tool's argument check on its first call, on the runtime's one thread: linear since
 *    schema-enums.ts (a million values still held every session for 2.8 s), and no model reads a
 *    list that long (a real enum is a few hundred values: countries, time zones).
 * Each refusal is said in words that name the rule and its limit (tools-list-mend.ts groups them).
 */

import { hasControlCharacter } from "../../log.js";

/** The most characters a tool name may have: MCP's limit (SEP-986). */
export const MAX_TOOL_NAME_CHARS = 128;

/**
 * The most levels of objects and arrays within one another a tools/list entry may have (the
 * entry itself is level 1); a schema level with `properties` is two. Also json-safe.ts's bound.
 */
export const MAX_ENTRY_DEPTH = 100;

/**
 * The most values the `enum` lists of one tools/list entry may hold in all; at this size the
 * first call's compile costs about 30 ms (README, Budgets and defences).
 */
export const MAX_ENUM_VALUES = 10_000;

/** Why the entry's name breaks MCP's naming rules in a way the runtime refuses; undefined when it does not. */
export function toolNameRefusal(name: string): string | undefined {
  if (hasControlCharacter(name)) return "its name holds control characters (a line break, an escape sequence…), which MCP's tool names may not hold";
  // The same words for every long name, so a list of thousands of them is one note.
  if (name.length > MAX_TOOL_NAME_CHARS) return `its name is longer than the ${MAX_TOOL_NAME_CHARS} characters MCP's tool names may have`;
  return undefined;
}

/** Whether `value` holds objects or arrays nested more than `limit` levels deep (itself level 1). Iterative: a deep value cannot overflow the stack here. */
function deeperThan(value: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (!next.value || typeof next.value !== "object") continue;
    if (next.depth > limit) return true;
    for (const child of Object.values(next.value)) if (child && typeof child === "object") pending.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/** How many values the `enum` lists in `value` hold in all (an array under any `enum` key). Iterative, as deeperThan. */
function enumValues(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (!next || typeof next !== "object") continue;
    for (const [key, child] of Object.entries(next)) {
      if (key === "enum" && Array.isArray(child)) count += child.length;
      else if (child && typeof child === "object") pending.push(child);
    }
  }
  return count;
}

/** Why the runtime refuses this tools/list entry (see above); undefined when it does not. Entries the SDK refuses are tools-list-mend.ts's. */
export function toolEntryRefusal(tool: unknown): string | undefined {
  if (!tool || typeof tool !== "object" || Array.isArray(tool)) return undefined;
  const entry = tool as Record<string, unknown>;
  if (typeof entry.name === "string") {
    const refused = toolNameRefusal(entry.name);
    if (refused) return refused;
  }
  // Named by the field that is too deep, so the server's author knows where to look.
  for (const [field, value] of Object.entries(entry)) {
    if (deeperThan(value, MAX_ENTRY_DEPTH - 1)) return `its ${field} is nested more than ${MAX_ENTRY_DEPTH} levels deep (objects and arrays within one another), the most a tool's entry may have; define deep types once under $defs and refer to them with $ref`;
  }
  // After the depth rule, so the count walks a value of bounded depth. The same words for every
  // entry (no count), so many of them are one note.
  for (const [field, value] of Object.entries(entry)) {
    if (enumValues(value) > MAX_ENUM_VALUES) return `its ${field} lists more than ${MAX_ENUM_VALUES.toLocaleString("en-US")} enum values in all, the most a tool's entry may have; take the value as a plain string and check it in the server, or split the tool`;
  }
  return undefined;
}
