import { schemaFaults } from "../../json-schema.js";
import { isPlainObject } from "../../plain-object.js";
import type { AdapterSpecError } from "./errors.js";
import { fieldName, type SpecProblem } from "./spec-check.js";

/**
 * A tool's `inputSchema` written in plugin.json (a rest or cli block) must compile: one that does
 * not (a misspelt `"type": "interger"`) would let every call through unchecked, and show the
 * model a type that does not exist. So the block is refused, each fault at its place in the file
 * (`tools[0].inputSchema.properties.id.type`), the way a skill's meta.args is at load.
 */
export function assertGivenSchemaCompiles(ErrorClass: new (problems: readonly SpecProblem[]) => AdapterSpecError, schema: unknown, field: string): void {
  if (!isPlainObject(schema)) return;
  const faults = schemaFaults(schema);
  if (!faults.length) return;
  const at = `${field}.inputSchema`;
  throw new ErrorClass(
    faults.map(({ segments, message }) => ({
      segments,
      field: fieldName(at, segments),
      message: `${message}; this inputSchema does not compile, so no call could be checked against it (fix it, or leave inputSchema out to have it made from the tool's mapping)`,
    })),
  );
}
