import { isPlainObject } from "../../plain-object.js";
import { nearKey } from "../../runtime/stray-keys.js";
import type { JsonSchema } from "../types.js";
import { plainProperties } from "./carried-arguments.js";
import { fieldProblem as problem, type SpecProblem } from "./spec-check.js";

/**
 * A declarative tool (a `rest` tool, a `cli` tool) says twice which arguments it takes: in its
 * mapping (a path placeholder `{id}`, a query map, body fields, an argv placeholder, an optional
 * group) and in its own `inputSchema`. When the two disagree the tool can never be called: the
 * schema refuses the name the mapping reads, the mapping has no place for the name the schema
 * asks for, and each refusal blames the caller, who goes round in a circle. So a manifest's own
 * schema is compared with its mapping when the block is read, and every disagreement is a problem
 * of the block, at its line, naming both sides and how to make them meet.
 *
 * Only a schema that lists its properties plainly is compared (a schema built from parts, with
 * `allOf`/`$ref`…, may declare a name in a part): for those, a call that still meets the mismatch
 * is answered as the plugin's fault (brokenMappingAnswer), not the caller's.
 */

/** One place of a tool's mapping that reads an argument. */
export interface ArgumentSlot {
  /** The argument it reads. */
  arg: string;
  /** Where it is written, as problems name fields ("tools[0].path", "adapter.tools[0].argv[2]"). */
  field: string;
  /** What it is, as the author knows it: "path placeholder {id}", "query parameter 'q'". */
  slot: string;
  /** How to make this side read `name` instead, as a clause: `rename the placeholder to {noteId}`. */
  renamed: (name: string) => string;
  /** Every call needs a value for it (a path or argv placeholder): the schema must require it. */
  needed: boolean;
}

export interface MappingCheck {
  /** The tool as problems name it: "tools[0]" or "adapter.tools[0]". */
  field: string;
  /** What holds the slots, after "read by nothing in": "the tool's request". */
  place: string;
  /** The tool also carries the arguments no slot names (a rest `body: "*"`): no property lacks a place. */
  carriesTheRest: boolean;
  /** Arguments a value is supplied for when the caller leaves them out (a rest tool's `defaults`). */
  defaulted?: readonly string[];
  /** How to give property `name` a place, as a clause: `add "name": "name" to query or body`. */
  addSlot: (name: string) => string;
}

function listed(names: readonly string[]): string {
  return names.length ? names.join(", ") : "none";
}

/**
 * Where a tool's mapping and its given `inputSchema` disagree, each a problem naming the slot (or
 * the property), what the other side says and the rename that fixes it. Empty when they agree,
 * when there is no given schema (the derived one agrees by construction) or when the schema is
 * built from parts.
 */
export function mappingProblems(schema: JsonSchema | undefined, slots: readonly ArgumentSlot[], check: MappingCheck): SpecProblem[] {
  const declared = schema === undefined ? undefined : plainProperties(schema);
  if (!schema || !declared) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const read = [...new Set(slots.map((s) => s.arg))];
  const unread = declared.filter((name) => !read.includes(name));
  const unmatched = slots.filter((slot, i) => !declared.includes(slot.arg) && slots.findIndex((s) => s.arg === slot.arg) === i);
  const problems: SpecProblem[] = [];
  /** Properties named as the other side of a slot's rename: said once, at the slot. */
  const paired = new Set<string>();
  for (const slot of unmatched) {
    // The one property no slot reads beside the one slot no property names is the name it meant; else a near spelling.
    const meant = unmatched.length === 1 && unread.length === 1 ? unread[0] : nearKey(slot.arg, unread);
    if (meant !== undefined) paired.add(meant);
    const renames = meant !== undefined ? `${slot.renamed(meant)}, or rename the property '${meant}' to '${slot.arg}'` : `declare '${slot.arg}' in its properties, or make the ${slot.slot} read one it declares`;
    problems.push(problem(slot.field, `reads argument '${slot.arg}' (${slot.slot}), but the tool's inputSchema declares no property '${slot.arg}' (it declares: ${listed(declared)}), so no call can reach it; make the two names meet: ${renames}`));
  }
  for (const slot of slots) {
    if (!slot.needed || !declared.includes(slot.arg) || required.has(slot.arg) || check.defaulted?.includes(slot.arg)) continue;
    problems.push(problem(`${check.field}.inputSchema.required`, `does not list '${slot.arg}', which the ${slot.slot} needs on every call; add '${slot.arg}' to required, so the schema says what a call must give`));
  }
  if (!check.carriesTheRest) {
    for (const name of unread) {
      if (paired.has(name)) continue;
      problems.push(problem(`${check.field}.inputSchema.properties.${name}`, `is read by nothing in ${check.place} (which reads only: ${listed(read)}), so every call that passes '${name}' is refused; ${check.addSlot(name)}, or remove the property`));
    }
  }
  return problems;
}

/**
 * Whether a schema declares argument `name` in its `properties` or those of its `allOf`/`anyOf`/
 * `oneOf` parts: true, false, or undefined when it cannot say (a `$ref` or `patternProperties`
 * may declare it). At run time this tells a mapping the manifest broke from an argument the caller got wrong.
 */
export function schemaDeclares(schema: JsonSchema, name: string): boolean | undefined {
  if (isPlainObject(schema.properties) && Object.hasOwn(schema.properties, name)) return true;
  let unsure = schema.$ref !== undefined || schema.patternProperties !== undefined;
  for (const keyword of ["allOf", "anyOf", "oneOf"] as const) {
    const parts = schema[keyword];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      if (!isPlainObject(part)) continue;
      const found = schemaDeclares(part as JsonSchema, name);
      if (found) return true;
      if (found === undefined) unsure = true;
    }
  }
  return unsure ? undefined : false;
}

/**
 * At a call, what of a tool's mapping its own schema contradicts (a schema built from parts, which
 * the load could not compare), as the answer says it; undefined when nothing does. `uncarried` is
 * the argument the mapping has no place for, if any; `needed` the slots every call must fill.
 */
export function contradictedMapping(schema: JsonSchema, args: Readonly<Record<string, unknown>>, uncarried: string | undefined, needed: readonly { arg: string; slot: string }[]): string | undefined {
  if (uncarried !== undefined && schemaDeclares(schema, uncarried) === true) return `its inputSchema declares '${uncarried}', but its mapping has no place for it`;
  for (const { arg, slot } of needed) {
    if ((args[arg] === undefined || args[arg] === null) && schemaDeclares(schema, arg) === false) return `its ${slot} reads argument '${arg}', which its inputSchema does not declare`;
  }
  return undefined;
}

/**
 * The answer to a call that met a mapping its own schema contradicts: the plugin is broken, not the
 * arguments; the model is told so (and to tell the user), never to change its arguments in a circle.
 */
export function brokenMappingAnswer(tool: string, what: string): { message: string; hint: string } {
  return {
    message: `tool '${tool}' is broken: ${what}; its manifest's mapping and inputSchema disagree, so no arguments can make this call work`,
    hint: "This is a fault in the plugin's manifest, not in your arguments: changing them cannot fix it. Tell the user the plugin needs fixing (`agent-tools validate` names the place); meanwhile do the work another way.",
  };
}
