import type { JsonSchema, ToolDescriptor } from "../types.js";
import { assertSpec } from "../shared/errors.js";
import { CliSpecError } from "./errors.js";
import { CLI_TOOL_SCHEMA } from "../block-schema-data.js";
import type { CliToolBlock } from "./schema.js";
import { parseArgvTemplate, type ArgvTemplate } from "./template.js";
import { closedToUndeclared } from "../shared/carried-arguments.js";
import { assertGivenSchemaCompiles } from "../shared/given-schema.js";
import { mappingProblems, type ArgumentSlot } from "../shared/mapping-check.js";

/**
 * One tool of a `cli` block: its argv template, input schema (given, or derived from the
 * placeholders), how stdout is returned, and whether it only reads.
 */

export interface CliTool {
  name: string;
  description?: string;
  template: ArgvTemplate;
  inputSchema: JsonSchema;
  readonly: boolean;
  parse: "json" | "text";
  /** Overrides the block's timeoutMs for this tool. */
  timeoutMs?: number;
}


/** Required strings for argv placeholders; optional groups by shape (flag, list, value). */
export function deriveInputSchema(template: ArgvTemplate): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const { arg, spread } of template.required) {
    const uses = template.items.filter((item) => item.parts.some((p) => "arg" in p && p.arg === arg)).map((item) => item.raw);
    const description = `argv ${uses.map((u) => JSON.stringify(u)).join(", ")}`;
    properties[arg] = spread ? { type: "array", items: { type: "string" }, description } : { type: "string", description };
  }
  for (const group of template.optional) {
    const description = `optional: adds ${group.items.map((item) => JSON.stringify(item.raw)).join(" ")}`;
    if (group.flag) properties[group.arg] = { type: "boolean", description };
    else if (group.spread) properties[group.arg] = { type: "array", items: { type: ["string", "number"] }, description: `${description} per element` };
    else properties[group.arg] = { type: ["string", "number"], description };
  }
  return { type: "object", properties, required: template.required.map((p) => p.arg), additionalProperties: false };
}

/** The places a cli tool's argv reads arguments from, for the comparison with its inputSchema (mapping-check.ts). */
function argvSlots(template: ArgvTemplate, field: string): ArgumentSlot[] {
  const required = template.required.map(({ arg, spread }): ArgumentSlot => {
    const item = template.items.find((i) => i.parts.some((p) => "arg" in p && p.arg === arg));
    return {
      arg,
      field: item?.field ?? `${field}.argv`,
      slot: `argv placeholder {${arg}${spread ? "..." : ""}}`,
      renamed: (name) => `rename the placeholder to {${name}${spread ? "..." : ""}}`,
      needed: true,
    };
  });
  const optional = template.optional.map(({ arg, flag }): ArgumentSlot => ({
    arg,
    field: `${field}.optional.${arg}`,
    slot: `optional group '${arg}'`,
    renamed: (name) => (flag ? `rename the group to '${name}'` : `rename the group (and its {${arg}}) to '${name}'`),
    needed: false,
  }));
  return [...required, ...optional];
}

export function parseCliTool(value: unknown, field: string): CliTool {
  assertSpec<CliToolBlock>(CliSpecError, CLI_TOOL_SCHEMA, value, field);
  const block: CliToolBlock = value;
  const template = parseArgvTemplate(block.argv, block.optional, field);
  assertGivenSchemaCompiles(CliSpecError, block.inputSchema, field);
  // The schema compiles before its names are compared with the mapping's.
  const mismatches = mappingProblems(block.inputSchema as JsonSchema | undefined, argvSlots(template, field), {
    field,
    place: "the tool's argv",
    carriesTheRest: false,
    addSlot: (name) => `give it a place in argv (an optional group, "${name}": ["--${name}", "{${name}}"], or a placeholder {${name}})`,
  });
  if (mismatches.length) throw new CliSpecError(mismatches);
  const tool: CliTool = {
    name: block.name,
    template,
    // A cli tool carries only what its argv names: a given schema is closed to the rest (carried-arguments.ts).
    inputSchema: block.inputSchema ? closedToUndeclared(block.inputSchema as JsonSchema) : deriveInputSchema(template),
    readonly: block.readonly === true,
    parse: block.parse ?? "text",
  };
  if (block.description !== undefined) tool.description = block.description;
  if (block.timeoutMs !== undefined) tool.timeoutMs = block.timeoutMs;
  return tool;
}

export function describeCliTool(tool: CliTool, program: string): ToolDescriptor {
  const shown = [program, ...tool.template.items.map((item) => item.raw)].join(" ");
  return {
    name: tool.name,
    description: tool.description ?? `runs: ${shown}`,
    inputSchema: tool.inputSchema,
    annotations: { readOnlyHint: tool.readonly, openWorldHint: true },
  };
}
