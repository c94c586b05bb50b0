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
  return undefined;
}
