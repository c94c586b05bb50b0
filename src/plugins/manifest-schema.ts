import { Type, type Static } from "@sinclair/typebox";
import { confirmGateSchema } from "./confirm-gate-schema.js";
import { EXTENSION_KEY } from "./manifest.js";

/**
 * plugin.json described with TypeBox: the types are derived from these schemas, and
 * scripts/spec-schemas.ts writes them as plain data (manifest-schema-data.ts) for manifest.ts, so
 * reading a manifest at start loads no TypeBox. Problems are worded by each node's `problem`
 * (adapters/shared/spec-check.ts).
 */

const Names = () => Type.Array(Type.String({ minLength: 1, problem: "must be a non-empty string" }), { problem: "must be an array of names" });

/** The runtime section, shared by both forms (top level in flat, the extension in the spec form). */
const runtimeSection = {
  prefix: Type.String({
    pattern: "^[a-z][a-z0-9_-]{0,31}$",
    problem: "must be lower case letters, digits, '_' or '-', starting with a letter, at most 32 characters",
  }),
  /** A module path relative to the plugin folder, or a declarative block of a built-in kind (checked against BLOCK_SCHEMAS). */
  adapter: Type.Union(
    [Type.String({ minLength: 1 }), Type.Object({ kind: Type.String({ minLength: 1, problem: "must name an adapter kind (mcp, rest, openapi, cli, …)" }) }, { additionalProperties: true })],
    { problem: "must be a module path or an object with a 'kind'" },
  ),
  adapterExport: Type.Optional(Type.String({ minLength: 1, problem: "must be a non-empty string" })),
  readonlyTools: Type.Optional(Names()),
  ...confirmGateSchema,
  skills: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Names()], { problem: "must be a path or an array of paths" })),
  discoverHint: Type.Optional(Type.String({ problem: "must be a string" })),
  discoverContext: Type.Optional(
    Type.Object(
      { skill: Type.String({ minLength: 1, problem: "must name a skill of this plugin" }), arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { problem: "must be an object" })) },
      { additionalProperties: false, title: "discoverContext" },
    ),
  ),
  requireConfirm: Type.Optional(Type.Boolean({ problem: "must be true or false" })),
  confirm: Type.Optional(Type.Unsafe<"elicit" | "flag">({ type: "string", enum: ["elicit", "flag"], problem: 'must be "elicit" or "flag"' })),
  requires: Type.Optional(Type.Object({ env: Type.Optional(Names()), bins: Type.Optional(Names()) }, { additionalProperties: false, title: "requires (env, bins)" })),
};

const RuntimeSectionSchema = Type.Object(runtimeSection, { additionalProperties: false, title: `the '${EXTENSION_KEY}' extension` });

/** Package metadata a flat manifest may carry beside the runtime's settings. */
const metadata = {
  $schema: Type.Optional(Type.String()),
  name: Type.String({ minLength: 1, problem: "must be a non-empty string" }),
  version: Type.Optional(Type.String({ problem: "must be a string" })),
  description: Type.Optional(Type.String({ problem: "must be a string" })),
  author: Type.Optional(Type.Unknown()),
  license: Type.Optional(Type.String()),
  homepage: Type.Optional(Type.String()),
  repository: Type.Optional(Type.Unknown()),
  keywords: Type.Optional(Type.Array(Type.String())),
};

export const FlatManifestSchema = Type.Object({ ...metadata, ...runtimeSection }, { additionalProperties: false, title: "a plugin manifest" });

/** Agent Plugins Spec 1.0.0: its own fields stay open (other tools read them); ours are the extension. */
export const SpecManifestSchema = Type.Object({
  $schema: Type.Optional(Type.String()),
  name: Type.String({ minLength: 1, problem: "must be a non-empty string" }),
  version: Type.String({ minLength: 1, problem: "must be a non-empty string" }),
  description: Type.String({ problem: "must be a string" }),
  extensions: Type.Object({ [EXTENSION_KEY]: RuntimeSectionSchema }, { problem: `must be an object holding '${EXTENSION_KEY}'` }),
});

export type RuntimeSection = Static<typeof RuntimeSectionSchema>;
export type FlatManifestDocument = Static<typeof FlatManifestSchema>;
export type SpecManifestDocument = Static<typeof SpecManifestSchema>;

