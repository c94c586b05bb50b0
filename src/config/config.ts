import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import * as jsonc from "jsonc-parser";
import { compileSchema, pointerToField, toViolations } from "../json-schema.js";
import { teamSchema, type TeamConfig } from "./team.js";

/**
 * `agent-tools.config.json` (comments and trailing commas allowed). Found by `--config`, else
 * $AGENT_TOOLS_CONFIG, else `./agent-tools.config.json` when present. Its `mcpServers` block is
 * the format Claude Desktop, Cursor and `.mcp.json` use, so an existing file can be pointed at.
 */

export const CONFIG_FILE_NAME = "agent-tools.config.json";

interface EntryCommon {
  description?: string;
  readonlyTools?: string[];
  requireConfirm?: boolean;
  /** How this server's writes are confirmed (see the README's Protocol section). */
  confirm?: "elicit" | "flag";
  discoverHint?: string;
  disabled?: boolean;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

export interface StdioServerEntry extends EntryCommon {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpServerEntry extends EntryCommon {
  type?: "http" | "streamable-http" | "sse";
  url: string;
  headers?: Record<string, string>;
}

export type McpServerEntry = StdioServerEntry | HttpServerEntry;

export interface AgentToolsConfig {
  /** Absolute path of the file, or undefined when no file was found. */
  file: string | undefined;
  mcpServers: Record<string, McpServerEntry>;
  plugins: { dirs: string[]; disable: string[]; confirm?: Record<string, "elicit" | "flag"> };
  facade: { mode: "per-plugin" | "compact" };
  /** The default confirm policy: "elicit" (ask the user when the client can) or "flag" (the model's confirm: true). */
  confirm?: "elicit" | "flag";
  http: { host?: string; port?: number; allowedHosts?: string[]; allowedOrigins?: string[]; maxSessions?: number; sessionIdleMs?: number; unusedSessionIdleMs?: number; maxBodyBytes?: number };
  /** Team gateway settings (README "Run it for a team"); absent for a single user. */
  team?: TeamConfig;
}

export class ConfigError extends Error {
  constructor(file: string, where: string | undefined, problem: string) {
    super(`${file}: ${where ? `${where}: ` : ""}${problem}`);
    this.name = "ConfigError";
  }
}

const strings = { type: "array", items: { type: "string" } } as const;
const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;
const common = {
  description: { type: "string" },
  readonlyTools: strings,
  requireConfirm: { type: "boolean" },
  confirm: { enum: ["elicit", "flag"] },
  discoverHint: { type: "string" },
  disabled: { type: "boolean" },
  timeoutMs: { type: "integer", minimum: 1 },
  idleTimeoutMs: { type: "integer", minimum: 1 },
} as const;

const entrySchema = {
  type: "object",
  properties: {
    ...common,
    type: { enum: ["stdio", "http", "streamable-http", "sse"] },
    command: { type: "string", minLength: 1 },
    args: strings,
    env: stringMap,
    cwd: { type: "string" },
    url: { type: "string", minLength: 1 },
    headers: stringMap,
  },
  additionalProperties: true,
} as const;

const configSchema = {
  type: "object",
  properties: {
    $schema: { type: "string" },
    mcpServers: { type: "object", additionalProperties: entrySchema },
    plugins: {
      type: "object",
      properties: { dirs: strings, disable: strings, confirm: { type: "object", additionalProperties: { enum: ["elicit", "flag"] } } },
      additionalProperties: false,
    },
    confirm: { enum: ["elicit", "flag"] },
    facade: { type: "object", properties: { mode: { enum: ["per-plugin", "compact"] } }, additionalProperties: false },
    http: {
      type: "object",
      properties: {
        host: { type: "string", minLength: 1 },
        port: { type: "integer", minimum: 0, maximum: 65535 },
        allowedHosts: strings,
        allowedOrigins: strings,
        maxSessions: { type: "integer", minimum: 1 },
        sessionIdleMs: { type: "integer", minimum: 1 },
        unusedSessionIdleMs: { type: "integer", minimum: 1 },
        maxBodyBytes: { type: "integer", minimum: 1 },
      },
      additionalProperties: false,
    },
    team: teamSchema,
  },
  additionalProperties: false,
} as const;

function describeWhere(pointer: string): { where: string | undefined; field: string | undefined } {
  const parts = pointer.split("/").slice(1);
  if (parts[0] === "mcpServers" && parts.length >= 2) {
    const field = parts.slice(2).join(".");
    return { where: `mcpServers.${parts[1]}`, field: field || undefined };
  }
  return { where: undefined, field: pointerToField(pointer) || undefined };
}

/** Validate a parsed config document and fill in defaults. Throws ConfigError naming file, entry and field. */
export function parseConfig(file: string, doc: unknown): AgentToolsConfig {
  const validate = compileSchema(configSchema as unknown as Record<string, unknown>);
  if (validate instanceof Error) throw validate;
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new ConfigError(file, undefined, "must be a JSON object");
  if (!validate(doc)) {
    const violations = toViolations(validate.errors);
    const first = violations[0];
    if (first) {
      const { where, field } = describeWhere(first.path);
      const problem = first.keyword === "additionalProperties" ? "is not a known setting" : first.message.replace(/^'[^']*' /, "");
      throw new ConfigError(file, where, `${field ? `field '${field}' ` : ""}${problem}`);
    }
  }
  const raw = doc as Record<string, unknown>;
  const servers = (raw.mcpServers ?? {}) as Record<string, Record<string, unknown>>;
  for (const [key, entry] of Object.entries(servers)) {
    const where = `mcpServers.${key}`;
    const hasCommand = typeof entry.command === "string";
    const hasUrl = typeof entry.url === "string";
    if (hasCommand === hasUrl) {
      throw new ConfigError(file, where, hasCommand ? "has both 'command' and 'url'; keep one" : "needs 'command' (a stdio server) or 'url' (an HTTP server)");
    }
    if (hasCommand && entry.type !== undefined && entry.type !== "stdio") throw new ConfigError(file, where, `field 'type' is '${String(entry.type)}' but the entry has a 'command'; use "stdio" or drop 'type'`);
    if (hasUrl && entry.type === "stdio") throw new ConfigError(file, where, "field 'type' is 'stdio' but the entry has a 'url'; use \"http\" or \"sse\"");
    if (hasUrl && !/^https?:\/\//i.test(String(entry.url).replace(/\$\{[^}]+\}/g, "x"))) {
      throw new ConfigError(file, where, `field 'url' must start with http:// or https:// (got '${String(entry.url)}')`);
    }
  }
  const plugins = (raw.plugins ?? {}) as { dirs?: string[]; disable?: string[]; confirm?: Record<string, "elicit" | "flag"> };
  const base = path.dirname(file);
  return {
    file,
    mcpServers: servers as unknown as Record<string, McpServerEntry>,
    plugins: { dirs: (plugins.dirs ?? []).map((d) => path.resolve(base, d)), disable: plugins.disable ?? [], ...(plugins.confirm ? { confirm: plugins.confirm } : {}) },
    ...(raw.confirm === "elicit" || raw.confirm === "flag" ? { confirm: raw.confirm } : {}),
    facade: { mode: ((raw.facade as { mode?: string } | undefined)?.mode as "per-plugin" | "compact" | undefined) ?? "per-plugin" },
    http: (raw.http ?? {}) as AgentToolsConfig["http"],
    ...(raw.team ? { team: raw.team as TeamConfig } : {}),
  };
}

export function emptyConfig(): AgentToolsConfig {
  return { file: undefined, mcpServers: {}, plugins: { dirs: [], disable: [] }, facade: { mode: "per-plugin" }, http: {} };
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

export function readConfigFile(file: string): AgentToolsConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, undefined, `cannot be read: ${(error as Error).message}`);
  }
  const errors: jsonc.ParseError[] = [];
  const doc: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const first = errors[0];
  if (first) throw new ConfigError(file, undefined, `is not valid JSON (${jsonc.printParseErrorCode(first.error)} at ${lineAndColumn(text, first.offset)})`);
  return parseConfig(file, doc);
}

/** Where the config comes from: an explicit path must exist; the default file is optional. */
export function locateConfig(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const named = explicit ?? env.AGENT_TOOLS_CONFIG;
  if (named) {
    const file = path.resolve(cwd, named);
    if (!existsSync(file)) throw new ConfigError(file, undefined, `does not exist (named by ${explicit ? "--config" : "AGENT_TOOLS_CONFIG"})`);
    return file;
  }
  const fallback = path.join(cwd, CONFIG_FILE_NAME);
  return existsSync(fallback) ? fallback : undefined;
}

export function loadConfig(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): AgentToolsConfig {
  const file = locateConfig(explicit, env, cwd);
  return file ? readConfigFile(file) : emptyConfig();
}
