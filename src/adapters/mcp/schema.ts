import { Type, type Static } from "@sinclair/typebox";
import { MAX_TIMER_MS, TIMER_MOST } from "../../positive-int.js";
import { Block, NonEmpty, PositiveInt, Word } from "../shared/spec-schema.js";

/**
 * The declarative `mcp` block as a schema (spec.ts normalises it; its type is derived here).
 * Numbers and booleans in `args`, `env` and `headers` are taken as their text, as clients do.
 */

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()], { problem: "must be a string" });
const ScalarMap = Type.Record(Type.String(), Scalar, { problem: "must be an object of strings" });

const mcpProperties = {
  kind: Type.Optional(Type.String()),
  command: Type.Optional(NonEmpty()),
  args: Type.Optional(Type.Array(Scalar, { problem: "must be an array of strings" })),
  env: Type.Optional(ScalarMap),
  cwd: Type.Optional(NonEmpty()),
  url: Type.Optional(NonEmpty()),
  headers: Type.Optional(ScalarMap),
  /** "http" (Streamable HTTP with fallback to SSE) or "sse"; the other two are clients' names for "http". */
  type: Type.Optional(Word(["http", "sse", "streamable-http", "streamableHttp"], 'must be "http" or "sse"')),
  auth: Type.Optional(
    Type.Object(
      {
        tokenEnv: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$", problem: "must be a variable name such as N8N_MCP_TOKEN" })),
        tokenStore: Type.Optional(NonEmpty()),
      },
      { additionalProperties: false, minProperties: 1, title: "auth", problem: "must be an object with 'tokenEnv' or 'tokenStore'" },
    ),
  ),
  timeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_MS, problem: `must be a positive number of milliseconds, ${TIMER_MOST}` })),
  /** 0 disables the idle stop. */
  idleTimeoutMs: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_TIMER_MS, problem: `must be a non-negative number of milliseconds, ${TIMER_MOST}` })),
  /** At most this many tool calls in flight to the server from this runtime; the rest wait in order (call-gate.ts). */
  maxConcurrentCalls: Type.Optional(PositiveInt("must be a whole number of calls, 1 or more (1: one call at a time)")),
  /** An advisory lock held around each call that may write, against other runtimes sharing the server's file (call-gate.ts). */
  lockFile: Type.Optional(NonEmpty()),
};

export const McpBlockSchema = Block("an mcp block", mcpProperties);

/** The `mcp-filesystem` kind: an mcp block and the folders it serves and hides (filesystem/index.ts). */
export const McpFilesystemBlockSchema = Block("an mcp-filesystem block", {
  ...mcpProperties,
  roots: Type.Optional(Type.Array(NonEmpty(), { problem: "must be an array of folder paths" })),
  hide: Type.Optional(Type.Array(NonEmpty(), { problem: "must be an array of file paths" })),
});

export type McpBlock = Static<typeof McpBlockSchema>;
export type McpFilesystemBlock = Static<typeof McpFilesystemBlockSchema>;
