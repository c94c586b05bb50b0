import { McpSpecError } from "./errors.js";

/**
 * The declarative `mcp` adapter block, parsed and checked. Either stdio:
 * `{ "kind": "mcp", "command", "args"?, "env"?, "cwd"?, "timeoutMs"?, "idleTimeoutMs"? }`
 * or HTTP: `{ "kind": "mcp", "url", "headers"?, "type"?: "http" | "sse", "auth"?, "timeoutMs"?, "idleTimeoutMs"? }`.
 * Values may hold `${VAR}` references; they are resolved at connect time, not here.
 */

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

export interface McpCommonSpec {
  timeoutMs: number;
  /** 0 disables the idle stop. */
  idleTimeoutMs: number;
}

export interface McpStdioSpec extends McpCommonSpec {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface McpAuthSpec {
  /** Name of a host variable holding a bearer token (used first when set). */
  tokenEnv?: string;
  /** Path of an OAuth token store file (`~` and `${VAR}` allowed). */
  tokenStore?: string;
}

export interface McpHttpSpec extends McpCommonSpec {
  transport: "http";
  url: string;
  headers: Record<string, string>;
  /** "http": Streamable HTTP with fallback to SSE; "sse": the old SSE transport only. */
  type: "http" | "sse";
  auth?: McpAuthSpec;
}

export type McpSpec = McpStdioSpec | McpHttpSpec;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function stringRecord(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new McpSpecError(field, "must be an object of strings");
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === "number" || typeof v === "boolean") out[key] = String(v);
    else if (typeof v === "string") out[key] = v;
    else throw new McpSpecError(`${field}.${key}`, "must be a string");
  }
  return out;
}

function duration(value: unknown, field: string, fallback: number, allowZero: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new McpSpecError(field, `must be a ${allowZero ? "non-negative" : "positive"} number of milliseconds`);
  }
  return Math.floor(value);
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new McpSpecError(field, "must be a non-empty string");
  return value;
}

export function parseMcpSpec(spec: Readonly<Record<string, unknown>>, where = "adapter"): McpSpec {
  const common: McpCommonSpec = {
    timeoutMs: duration(spec.timeoutMs, `${where}.timeoutMs`, DEFAULT_TIMEOUT_MS, false),
    idleTimeoutMs: duration(spec.idleTimeoutMs, `${where}.idleTimeoutMs`, DEFAULT_IDLE_TIMEOUT_MS, true),
  };
  const hasCommand = spec.command !== undefined;
  const hasUrl = spec.url !== undefined;
  if (hasCommand && hasUrl) throw new McpSpecError(where, "has both 'command' (stdio) and 'url' (HTTP); give one");
  if (!hasCommand && !hasUrl) throw new McpSpecError(where, "needs 'command' (a stdio server) or 'url' (an HTTP server)");
  if (hasCommand) {
    const command = optionalString(spec.command, `${where}.command`) as string;
    let args: string[] = [];
    if (spec.args !== undefined) {
      if (!Array.isArray(spec.args)) throw new McpSpecError(`${where}.args`, "must be an array of strings");
      args = spec.args.map((arg, i) => {
        if (typeof arg === "string") return arg;
        if (typeof arg === "number" || typeof arg === "boolean") return String(arg);
        throw new McpSpecError(`${where}.args[${i}]`, "must be a string");
      });
    }
    const cwd = optionalString(spec.cwd, `${where}.cwd`);
    return { transport: "stdio", command, args, env: stringRecord(spec.env, `${where}.env`), ...(cwd ? { cwd } : {}), ...common };
  }
  const url = optionalString(spec.url, `${where}.url`) as string;
  if (!/^(https?:\/\/|\$\{)/i.test(url)) throw new McpSpecError(`${where}.url`, `must be an http:// or https:// URL (got '${url}')`);
  const type = spec.type ?? "http";
  if (type !== "http" && type !== "sse" && type !== "streamable-http" && type !== "streamableHttp") {
    throw new McpSpecError(`${where}.type`, `must be "http" or "sse" (got ${JSON.stringify(type)})`);
  }
  let auth: McpAuthSpec | undefined;
  if (spec.auth !== undefined) {
    if (!isRecord(spec.auth)) throw new McpSpecError(`${where}.auth`, "must be an object { tokenEnv?, tokenStore? }");
    const tokenEnv = optionalString(spec.auth.tokenEnv, `${where}.auth.tokenEnv`);
    const tokenStore = optionalString(spec.auth.tokenStore, `${where}.auth.tokenStore`);
    if (tokenEnv && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) throw new McpSpecError(`${where}.auth.tokenEnv`, "must be a variable name such as N8N_MCP_TOKEN");
    if (!tokenEnv && !tokenStore) throw new McpSpecError(`${where}.auth`, "needs 'tokenEnv' or 'tokenStore'");
    auth = { ...(tokenEnv ? { tokenEnv } : {}), ...(tokenStore ? { tokenStore } : {}) };
  }
  return {
    transport: "http",
    url,
    headers: stringRecord(spec.headers, `${where}.headers`),
    type: type === "sse" ? "sse" : "http",
    ...(auth ? { auth } : {}),
    ...common,
  };
}
