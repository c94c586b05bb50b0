import type { JsonSchema, ToolDescriptor } from "../types.js";
import { CliSpecError } from "./errors.js";
import { parseArgvTemplate, type ArgvTemplate } from "./template.js";

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

const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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

export function parseCliTool(value: unknown, field: string): CliTool {
  if (!isRecord(value)) throw new CliSpecError(field, "must be an object");
  const name = value.name;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) throw new CliSpecError(`${field}.name`, "must be 1-128 letters, digits, '_' or '-'");
  if (value.description !== undefined && typeof value.description !== "string") throw new CliSpecError(`${field}.description`, "must be a string");
  const template = parseArgvTemplate(value.argv, value.optional, field);
  if (value.inputSchema !== undefined && !isRecord(value.inputSchema)) throw new CliSpecError(`${field}.inputSchema`, "must be a JSON Schema object");
  if (value.readonly !== undefined && typeof value.readonly !== "boolean") throw new CliSpecError(`${field}.readonly`, "must be true or false");
  const parse = value.parse ?? "text";
  if (parse !== "json" && parse !== "text") throw new CliSpecError(`${field}.parse`, `must be "json" or "text" (got ${JSON.stringify(value.parse)})`);
  const timeoutMs = value.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1)) throw new CliSpecError(`${field}.timeoutMs`, "must be a positive integer");
  const tool: CliTool = {
    name,
    template,
    inputSchema: (value.inputSchema as JsonSchema | undefined) ?? deriveInputSchema(template),
    readonly: value.readonly === true,
    parse,
  };
  if (typeof value.description === "string") tool.description = value.description;
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs;
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
