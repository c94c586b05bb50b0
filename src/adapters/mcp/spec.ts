import { assertSpec } from "../shared/errors.js";
import { McpSpecError } from "./errors.js";
import { MCP_BLOCK_SCHEMA } from "../block-schema-data.js";
import type { McpBlock } from "./schema.js";

/**
 * The declarative `mcp` adapter block, parsed and checked. Either stdio:
 * `{ "kind": "mcp", "command", "args"?, "env"?, "cwd"?, "timeoutMs"?, "idleTimeoutMs"?, "maxConcurrentCalls"?, "lockFile"? }`
 * or HTTP: `{ "kind": "mcp", "url", "headers"?, "type"?: "http" | "sse", "auth"?, "timeoutMs"?, "idleTimeoutMs"?, "maxConcurrentCalls"?, "lockFile"? }`.
 * Values may hold `${VAR}` references; they are resolved at connect time, not here.
 */

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

export interface McpCommonSpec {
  timeoutMs: number;
  /** 0 disables the idle stop. */
  idleTimeoutMs: number;
  /** At most this many tool calls in flight at once (call-gate.ts); absent: no cap. */
  maxConcurrentCalls?: number;
  /** The lock held around each call that may write, as written (`~` and `${VAR}` allowed; resolved by the factory). */
  lockFile?: string;
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

/** Clients write `"args": [8080]` and `"env": {"DEBUG": true}`; the child gets their text. */
function texts(values: readonly (string | number | boolean)[]): string[] {
  return values.map(String);
}

function textMap(value: Readonly<Record<string, string | number | boolean>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(value ?? {}).map(([k, v]) => [k, String(v)]));
}

/**
 * Check the block against McpBlockSchema (every problem at once, as one McpSpecError naming each
 * field after `where`), then the rules a schema does not say well: exactly one of `command` and
 * `url`, and a URL that is http(s) or a `${VAR}` resolved later.
 */
export function parseMcpSpec(spec: Readonly<Record<string, unknown>>, where = "adapter"): McpSpec {
  assertSpec<McpBlock>(McpSpecError, MCP_BLOCK_SCHEMA, spec, where);
  const block: McpBlock = spec;
  const common: McpCommonSpec = {
    timeoutMs: Math.floor(block.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    idleTimeoutMs: Math.floor(block.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    ...(block.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: block.maxConcurrentCalls } : {}),
    ...(block.lockFile !== undefined ? { lockFile: block.lockFile } : {}),
  };
  const hasCommand = block.command !== undefined;
  const hasUrl = block.url !== undefined;
  if (hasCommand && hasUrl) throw new McpSpecError(where, "has both 'command' (stdio) and 'url' (HTTP); give one");
  if (!block.command && !block.url) throw new McpSpecError(where, "needs 'command' (a stdio server) or 'url' (an HTTP server)");
  if (block.command) {
    return { transport: "stdio", command: block.command, args: texts(block.args ?? []), env: textMap(block.env), ...(block.cwd ? { cwd: block.cwd } : {}), ...common };
  }
  const url = block.url as string;
  if (!/^(https?:\/\/|\$\{)/i.test(url)) throw new McpSpecError(`${where}.url`, `must be an http:// or https:// URL (got '${url}')`);
  const auth = block.auth ? { ...(block.auth.tokenEnv ? { tokenEnv: block.auth.tokenEnv } : {}), ...(block.auth.tokenStore ? { tokenStore: block.auth.tokenStore } : {}) } : undefined;
  return {
    transport: "http",
    url,
    headers: textMap(block.headers),
    type: block.type === "sse" ? "sse" : "http",
    ...(auth ? { auth } : {}),
    ...common,
  };
}
