import { Type, type Static } from "@sinclair/typebox";
import { confirmGateSchema } from "../plugins/confirm-gate-schema.js";
import { MAX_TIMER_MS } from "../positive-int.js";
import { teamSchema, type TeamConfig } from "./team.js";

/**
 * The config file described once, as JSON Schema built with TypeBox: ajv validates documents
 * against it and the TypeScript types below are derived from it, so the two cannot drift. At run
 * time config.ts reads the same schemas as plain data (schema-data.ts, generated from these by
 * `npm run schema:config` and checked by test/config.file.test.ts), so a start loads no TypeBox.
 */

const Strings = Type.Array(Type.String());
const StringMap = Type.Record(Type.String(), Type.String());
/** Milliseconds a timer waits: no more than it can (positive-int.ts MAX_TIMER_MS). */
const Millis = Type.Integer({ minimum: 1, maximum: MAX_TIMER_MS });
/** One of a few words, as a plain `enum` (ajv then says "must be one of [...]"), typed as their union. */
const OneOf = <T extends string>(...words: T[]) => Type.Unsafe<T>({ type: "string", enum: words });
/** "elicit": ask the user when the client can; "flag": the model's confirm: true. */
const ConfirmPolicy = OneOf("elicit", "flag");

/** Settings every server entry may carry, ours and those of the clients whose files are read as they are. */
export const ServerEntrySchema = Type.Object(
  {
    // ours
    description: Type.Optional(Type.String()),
    readonlyTools: Type.Optional(Strings),
    // confirmTools and trustReadOnlyHints: the same fields, checked the same way, as plugin.json's
    ...confirmGateSchema,
    requireConfirm: Type.Optional(Type.Boolean()),
    /** How this server's writes are confirmed (README "Protocol"). */
    confirm: Type.Optional(ConfirmPolicy),
    discoverHint: Type.Optional(Type.String()),
    disabled: Type.Optional(Type.Boolean()),
    timeoutMs: Type.Optional(Millis),
    idleTimeoutMs: Type.Optional(Millis),
    /** At most this many tool calls in flight to the server from this runtime (adapters/mcp/call-gate.ts). */
    maxConcurrentCalls: Type.Optional(Type.Integer({ minimum: 1 })),
    /** An advisory lock held around each call that may write, against other runtimes sharing the server's file. */
    lockFile: Type.Optional(Type.String({ minLength: 1 })),
    /** Gemini CLI's tool filter (tool-filter.ts): only these tools of the server are served. */
    includeTools: Type.Optional(Strings),
    /** Gemini CLI's tool filter: these tools of the server are never served (wins over includeTools). */
    excludeTools: Type.Optional(Strings),
    // the shared mcpServers vocabulary (Claude Desktop, Claude Code, Cursor, VS Code)
    type: Type.Optional(OneOf("stdio", "http", "streamable-http", "sse")),
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Strings),
    env: Type.Optional(StringMap),
    cwd: Type.Optional(Type.String()),
    url: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(StringMap),
    // Cursor and VS Code: a dotenv file merged under `env`
    envFile: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const HttpSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    allowedHosts: Type.Optional(Strings),
    allowedOrigins: Type.Optional(Strings),
    maxSessions: Type.Optional(Type.Integer({ minimum: 1 })),
    sessionIdleMs: Type.Optional(Millis),
    unusedSessionIdleMs: Type.Optional(Millis),
    maxBodyBytes: Type.Optional(Type.Integer({ minimum: 1 })),
    maxWorkspaces: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const PluginsSchema = Type.Object(
  {
    dirs: Type.Optional(Strings),
    disable: Type.Optional(Strings),
    /** Keep the embedded filesystem and memory plugins although a config file is loaded. */
    embedded: Type.Optional(Type.Boolean()),
    /** Per plugin prefix: its confirm policy. */
    confirm: Type.Optional(Type.Record(Type.String(), ConfirmPolicy)),
  },
  { additionalProperties: false },
);

const FacadeSchema = Type.Object({ mode: Type.Optional(OneOf("per-plugin", "compact")) }, { additionalProperties: false });

/** Our own top-level settings; others (a client's globalShortcut) are ignored with a notice. */
export const ConfigSchema = Type.Object({
  $schema: Type.Optional(Type.String()),
  mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  plugins: Type.Optional(PluginsSchema),
  facade: Type.Optional(FacadeSchema),
  http: Type.Optional(HttpSchema),
  confirm: Type.Optional(ConfirmPolicy),
  // The team gateway's block keeps its own plain JSON Schema (config/team.ts).
  team: Type.Optional(Type.Unsafe<TeamConfig>(teamSchema)),
});


export type ServerEntryDocument = Static<typeof ServerEntrySchema>;
export type HttpSettings = Static<typeof HttpSchema>;
export type ConfigDocument = Static<typeof ConfigSchema>;
