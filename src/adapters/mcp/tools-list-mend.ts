/**
 * A tools/list answer with one malformed tool entry is refused whole by the SDK's result check
 * (one zod error for the page), which took down every tool of the server. Before the SDK reads
 * such an answer, each entry its check refuses is mended or left out, on its own: a missing or
 * unusable `inputSchema` becomes `{type: "object"}` (the tool stays callable, its arguments
 * unchecked), an unusable `outputSchema` is ignored, and an entry still refused after that is
 * left out; a schema whose only fault is a field (`"required": null`, Go's empty list) keeps the
 * rest. Each kind of change is said in one plain sentence naming the tools (the first few, each
 * on one line and cut, then a count), never the zod dump.
 */

import { echoedName } from "../../runtime/argument-value.js";
import { toolEntryRefusal } from "./tool-entry-rules.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The fault of an object schema that only lacks its type (`{properties: …}`). */
const NO_OBJECT_TYPE = "has no \"type\": \"object\"";

/** Why `schema` is no object schema the SDK takes ("" when it looks fine, so the SDK refused something else in it). */
export function objectSchemaFault(schema: unknown): string {
  if (schema === undefined) return "is missing";
  if (!isRecord(schema)) return `is ${Array.isArray(schema) ? "an array" : JSON.stringify(schema)}, not a JSON Schema object`;
  if (schema.type === undefined) return NO_OBJECT_TYPE;
  if (schema.type !== "object") return `has type ${JSON.stringify(schema.type)}, not "object"`;
  if (schema.properties !== undefined && (!isRecord(schema.properties) || !Object.values(schema.properties).every((p) => isRecord(p) || typeof p === "boolean"))) return "has \"properties\" that is not an object of schemas";
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))) return "has \"required\" that is not a list of names";
  return "";
}

export interface MendedToolsList {
  /** The result with every entry the check refused mended or left out. */
  result: Record<string, unknown>;
  /** One sentence per kind of change: the tools it touched named (the first few), with their count. */
  notes: string[];
}

/** Tool names a grouped note names; the rest are counted. */
const NAMES_PER_NOTE = 5;
/** A server's tool name as a note quotes it: on one line, cut (echoedName). */
function quotedName(name: string): string {
  return `'${echoedName(name)}'`;
}

/**
 * `result` (a tools/list result) with the entries `accepts` refuses mended or left out;
 * undefined when there is nothing to mend (it passes, or what fails is not its tool entries).
 * `accepts` is the SDK's own check of a tools/list result, so what is kept passes it.
 */
export function mendToolsList(result: Record<string, unknown>, accepts: (result: Record<string, unknown>) => boolean): MendedToolsList | undefined {
  if (!Array.isArray(result.tools)) return undefined;
  // The runtime's own rules first (tool-entry-rules.ts): an entry too deep for the SDK's check is
  // never handed to it, and a name the check takes but the runtime refuses is left out too.
  const refused = withoutRefusedEntries(result.tools as unknown[]);
  const listed = refused ? { ...result, tools: refused.kept } : result;
  const tools = listed.tools as unknown[];
  if (accepts(listed) || !accepts({ ...result, tools: [] })) return refused && { result: listed, notes: refused.notes };
  // The same change made to many tools (a Go server's `"required": null` on all 300) is one note.
  const changed = new Map<string, string[]>();
  const passes = (tool: unknown): boolean => accepts({ ...result, tools: [tool] });
  const kept: unknown[] = [];
  for (const tool of tools) {
    if (passes(tool)) {
      kept.push(tool);
      continue;
    }
    const mended = mendTool(tool, passes);
    if (mended.change) {
      const names = changed.get(mended.change) ?? [];
      names.push(mended.name ?? "");
      changed.set(mended.change, names);
    }
    if (mended.tool !== undefined) kept.push(mended.tool);
  }
  return { result: { ...result, tools: kept }, notes: [...(refused?.notes ?? []), ...[...changed].map(([change, names]) => groupedNote(change, names))] };
}

/**
 * `tools` without the entries the runtime's own rules refuse, with one note per rule broken;
 * undefined when none is refused (nearly always). The entries are named by their place in the
 * answer: a name that broke the rules is quoted only short and escaped.
 */
function withoutRefusedEntries(tools: readonly unknown[]): { kept: unknown[]; notes: string[] } | undefined {
  const refused = new Map<string, string[]>();
  const kept: unknown[] = [];
  tools.forEach((tool, index) => {
    const why = toolEntryRefusal(tool);
    if (!why) {
      kept.push(tool);
      return;
    }
    const name = (tool as { name?: unknown }).name;
    const entries = refused.get(why) ?? [];
    entries.push(`${index}${typeof name === "string" ? ` ('${echoedName(name, REFUSED_NAME_CHARS)}')` : ""}`);
    refused.set(why, entries);
  });
  if (!refused.size) return undefined;
  const notes = [...refused].map(([why, entries]) => {
    if (entries.length === 1) return `entry ${entries[0]} was left out: ${why}`;
    const more = entries.length > NAMES_PER_NOTE ? ` and ${entries.length - NAMES_PER_NOTE} more` : "";
    return `${entries.length} entries (${entries.slice(0, NAMES_PER_NOTE).join(", ")}${more}) were left out, each because ${why}`;
  });
  return { kept, notes };
}

/** How much of a refused entry's name its note quotes: enough to find it, not a 10,000-character one. */
const REFUSED_NAME_CHARS = 40;

/** "tool 'a': …", or "3 tools ('a', 'b', 'c'): …", or "300 tools ('a', … and 295 more): …". */
function groupedNote(change: string, names: readonly string[]): string {
  // Entries without a name have a change of their own (mendTool), so a group is all named or all not.
  if (names[0] === "") return names.length === 1 ? `a tools/list entry ${change}` : `${names.length} tools/list entries ${change}`;
  const shown = names.slice(0, NAMES_PER_NOTE).map(quotedName).join(", ");
  const more = names.length > NAMES_PER_NOTE ? ` and ${names.length - NAMES_PER_NOTE} more` : "";
  return names.length === 1 ? `tool ${shown}: ${change}` : `${names.length} tools (${shown}${more}): ${change}`;
}

/**
 * An inputSchema with only its bad fields mended, or undefined when it cannot be so: `required`
 * that is null (Go's empty list) or holds non-names keeps its names, `properties` keeps its
 * schemas; everything else in it is kept, so the tool is still checked.
 */
function mendedFields(schema: unknown): { schema: Record<string, unknown>; said: string[] } | undefined {
  if (!isRecord(schema) || schema.type !== "object") return undefined;
  const out: Record<string, unknown> = { ...schema };
  const said: string[] = [];
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))) {
    const names = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
    if (names.length) out.required = names;
    else delete out.required;
    said.push(schema.required === null ? "its inputSchema's \"required\" is null, read as no required fields" : "its inputSchema's \"required\" is not a list of names; only the names in it were kept");
  }
  if (schema.properties !== undefined && !(isRecord(schema.properties) && Object.values(schema.properties).every((p) => isRecord(p) || typeof p === "boolean"))) {
    if (isRecord(schema.properties)) {
      out.properties = Object.fromEntries(Object.entries(schema.properties).filter(([, p]) => isRecord(p) || typeof p === "boolean"));
      said.push("its inputSchema's \"properties\" holds entries that are not schemas; they were ignored");
    } else {
      delete out.properties;
      said.push(`its inputSchema's "properties" is ${Array.isArray(schema.properties) ? "a list" : JSON.stringify(schema.properties)}, not an object of schemas, so it was ignored`);
    }
  }
  return said.length && !objectSchemaFault(out) ? { schema: out, said } : undefined;
}

/**
 * An inputSchema that is no object schema, as one (undefined when it is one): missing becomes
 * `{type: "object"}`; `{properties: …}` without a type gets it (the schema its author meant, its
 * checks kept); bad `required`/`properties` fields are mended; anything else (`{type: "array"}`,
 * a string) is taken as `{type: "object"}`, the tool callable and its arguments unchecked. `said`:
 * what is worth telling the plugin's author.
 */
export function mendedInputSchema(schema: unknown): { schema: Record<string, unknown>; said: string[] } | undefined {
  const fault = objectSchemaFault(schema);
  if (!fault) return undefined;
  if (fault === "is missing") return { schema: { type: "object" }, said: [] };
  if (fault === NO_OBJECT_TYPE) {
    const typed = { ...(schema as Record<string, unknown>), type: "object" };
    if (!objectSchemaFault(typed)) return { schema: typed, said: [] };
  }
  return mendedFields(schema) ?? { schema: { type: "object" }, said: [`its inputSchema ${fault}, so it was taken as {"type": "object"} and the tool's arguments are not checked`] };
}

/**
 * `tools` (a module adapter's list: no SDK check to pass) with each inputSchema that is no object
 * schema mended as a server's are (mendedInputSchema), and one note per kind of change.
 */
export function mendInputSchemas<T extends { name: string; inputSchema?: unknown }>(tools: T[]): { tools: T[]; notes: string[] } {
  const changed = new Map<string, string[]>();
  const mended = tools.map((tool) => {
    const input = mendedInputSchema(tool.inputSchema);
    if (!input) return tool;
    for (const change of input.said) changed.set(change, [...(changed.get(change) ?? []), tool.name]);
    return { ...tool, inputSchema: input.schema };
  });
  return { tools: mended, notes: [...changed].map(([change, names]) => groupedNote(change, names)) };
}

function mendTool(tool: unknown, passes: (tool: unknown) => boolean): { tool?: unknown; name?: string; change?: string } {
  if (!isRecord(tool) || typeof tool.name !== "string" || tool.name === "") return { change: "without a name was left out" };
  const name = tool.name;
  const candidate: Record<string, unknown> = { ...tool };
  const changes: string[] = [];
  const input = mendedInputSchema(tool.inputSchema);
  if (input) {
    candidate.inputSchema = input.schema;
    changes.push(...input.said);
  }
  if (tool.outputSchema !== undefined && objectSchemaFault(tool.outputSchema)) {
    delete candidate.outputSchema;
    changes.push(`its outputSchema ${objectSchemaFault(tool.outputSchema)}, so it was ignored`);
  }
  if (passes(candidate)) return { tool: candidate, name, ...(changes.length ? { change: changes.join("; ") } : {}) };
  // Something else in the entry (annotations, icons, a title that is no string…): the bare tool.
  const bare: Record<string, unknown> = { name, inputSchema: candidate.inputSchema, ...(typeof tool.description === "string" ? { description: tool.description } : {}) };
  const ignored = Object.keys(tool).filter((key) => !(key in bare) && key !== "outputSchema");
  if (passes(bare)) return { tool: bare, name, change: [...changes, `its entry does not match the MCP Tool shape, so ${ignored.map((k) => `'${k}'`).join(", ") || "its other fields"} ${ignored.length === 1 ? "was" : "were"} ignored`].join("; ") };
  return { name, change: "was left out: its tools/list entry does not match the MCP Tool shape" };
}
