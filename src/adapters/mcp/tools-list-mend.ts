/**
 * A tools/list answer with one malformed tool entry is refused whole by the SDK's result check
 * (one zod error for the page), which took down every tool of the server. Before the SDK reads
 * such an answer, each entry its check refuses is mended or left out, on its own: a missing or
 * unusable `inputSchema` becomes `{type: "object"}` (the tool stays callable, its arguments
 * unchecked), an unusable `outputSchema` is ignored, and an entry still refused after that is
 * left out. Each change is said in one plain sentence naming the tool, never the zod dump.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** Why `schema` is no object schema the SDK takes ("" when it looks fine, so the SDK refused something else in it). */
export function objectSchemaFault(schema: unknown): string {
  if (schema === undefined) return "is missing";
  if (!isRecord(schema)) return `is ${Array.isArray(schema) ? "an array" : JSON.stringify(schema)}, not a JSON Schema object`;
  if (schema.type === undefined) return "has no \"type\": \"object\"";
  if (schema.type !== "object") return `has type ${JSON.stringify(schema.type)}, not "object"`;
  if (schema.properties !== undefined && (!isRecord(schema.properties) || !Object.values(schema.properties).every((p) => isRecord(p) || typeof p === "boolean"))) return "has \"properties\" that is not an object of schemas";
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))) return "has \"required\" that is not a list of names";
  return "";
}

export interface MendedToolsList {
  /** The result with every entry the check refused mended or left out. */
  result: Record<string, unknown>;
  /** One sentence per entry changed or left out. */
  notes: string[];
}

/**
 * `result` (a tools/list result) with the entries `accepts` refuses mended or left out;
 * undefined when there is nothing to mend (it passes, or what fails is not its tool entries).
 * `accepts` is the SDK's own check of a tools/list result, so what is kept passes it.
 */
export function mendToolsList(result: Record<string, unknown>, accepts: (result: Record<string, unknown>) => boolean): MendedToolsList | undefined {
  const tools = result.tools;
  if (!Array.isArray(tools) || accepts(result) || !accepts({ ...result, tools: [] })) return undefined;
  const notes: string[] = [];
  const passes = (tool: unknown): boolean => accepts({ ...result, tools: [tool] });
  const kept: unknown[] = [];
  for (const tool of tools as unknown[]) {
    if (passes(tool)) {
      kept.push(tool);
      continue;
    }
    const mended = mendTool(tool, passes);
    if (mended.note) notes.push(mended.note);
    if (mended.tool !== undefined) kept.push(mended.tool);
  }
  return { result: { ...result, tools: kept }, notes };
}

function mendTool(tool: unknown, passes: (tool: unknown) => boolean): { tool?: unknown; note?: string } {
  if (!isRecord(tool) || typeof tool.name !== "string" || tool.name === "") return { note: "a tools/list entry without a name was left out" };
  const name = tool.name;
  const inputFault = objectSchemaFault(tool.inputSchema);
  const candidate: Record<string, unknown> = { ...tool };
  const changes: string[] = [];
  if (inputFault === "is missing") candidate.inputSchema = { type: "object" };
  else if (inputFault === "has no \"type\": \"object\"" && passes({ ...tool, inputSchema: { ...(tool.inputSchema as object), type: "object" } })) {
    // `{properties: …}` without a type: the object schema its author meant; its checks are kept.
    return { tool: { ...tool, inputSchema: { ...(tool.inputSchema as object), type: "object" } } };
  } else if (inputFault) {
    candidate.inputSchema = { type: "object" };
    changes.push(`its inputSchema ${inputFault}, so it was taken as {"type": "object"} and the tool's arguments are not checked`);
  }
  if (tool.outputSchema !== undefined && objectSchemaFault(tool.outputSchema)) {
    delete candidate.outputSchema;
    changes.push(`its outputSchema ${objectSchemaFault(tool.outputSchema)}, so it was ignored`);
  }
  if (passes(candidate)) return { tool: candidate, ...(changes.length ? { note: `tool '${name}': ${changes.join("; ")}` } : {}) };
  // Something else in the entry (annotations, icons, a title that is no string…): the bare tool.
  const bare: Record<string, unknown> = { name, inputSchema: candidate.inputSchema, ...(typeof tool.description === "string" ? { description: tool.description } : {}) };
  const ignored = Object.keys(tool).filter((key) => !(key in bare) && key !== "outputSchema");
  if (passes(bare)) return { tool: bare, note: `tool '${name}': ${[...changes, `its entry does not match the MCP Tool shape, so ${ignored.map((k) => `'${k}'`).join(", ") || "its other fields"} ${ignored.length === 1 ? "was" : "were"} ignored`].join("; ")}` };
  return { note: `tool '${name}' was left out: its tools/list entry does not match the MCP Tool shape` };
}
