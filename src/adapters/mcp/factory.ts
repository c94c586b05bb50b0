import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import type { AdapterOptions, Logger, SettingsLocation } from "../types.js";
import { referencedVariables } from "../shared/env-vars.js";
import { createRedactor, type Redactor } from "../shared/redact.js";
import { McpAdapter } from "./adapter.js";
import { describeCredentials } from "./bearer-auth.js";
import type { TransportOpener } from "./connection.js";
import { resolveStorePath, type SharedTokenState } from "./oauth-token-store.js";
import { parseMcpSpec, type McpHttpSpec, type McpSpec } from "./spec.js";
import { createStdioOpener } from "./stdio-transport.js";

/**
 * The `mcp` adapter kind. stdio:
 * ```json
 * { "kind": "mcp", "command": "node", "args": ["server.js"], "env": { "API_KEY": "${API_KEY}" },
 *   "cwd": ".", "timeoutMs": 60000, "idleTimeoutMs": 600000, "maxConcurrentCalls": 1, "lockFile": "~/.local/state/x/data.json.lock" }
 * ```
 * HTTP (Streamable HTTP, falling back to SSE; `"type": "sse"` for SSE only):
 * ```json
 * { "kind": "mcp", "url": "https://mcp.example.com/mcp", "headers": { "X-Team": "${TEAM}" },
 *   "auth": { "tokenEnv": "N8N_MCP_TOKEN", "tokenStore": "~/.config/agent-tools/n8n/tokens.json" } }
 * ```
 * The server starts (or connects) on first use. See connection.ts for restart, idle stop and
 * error codes; stdio-transport.ts for the child's environment; oauth-token-store.ts for refresh.
 * The HTTP client transports (and their OAuth, SSE and fetch machinery) are imported on the first
 * connection over HTTP: a fleet of stdio servers never loads them.
 */

export interface CreateMcpAdapterExtras {
  /** Test hooks: a fetch for HTTP, the SIGTERM grace period for stdio. */
  fetch?: typeof fetch;
  killGraceMs?: number;
  redactor?: Redactor;
}

type HttpOpenerOptions = Parameters<typeof import("./http-transport.js").createHttpOpener>[1];

function lazyHttpOpener(spec: McpHttpSpec, options: HttpOpenerOptions): TransportOpener {
  let opener: Promise<TransportOpener> | undefined;
  return async (makeClient, requestOptions) => {
    opener ??= import("./http-transport.js").then((m) => m.createHttpOpener(spec, options));
    return (await opener)(makeClient, requestOptions);
  };
}

/**
 * Where the spec's settings are set: one written as a single `${VAR}` template (`"url":
 * "${NOTES_URL}/mcp"`, `"args": ["${CCDD_GATE_SCRIPT}"]`) is set by VAR, so hints that say what to
 * correct name the variable, not the field that only refers to it (settingAt). A list counts only
 * when every entry is exactly one `${VAR}` of the same variable: a variable that sets one entry of
 * `["-y", "@scope/server-githb", "--token", "${GITHUB_TOKEN}"]` does not set the misspelt package,
 * so such a list stays named as itself. A variable the caller already names wins.
 */
export function withTemplateVariables(settings: SettingsLocation | undefined, spec: McpSpec): SettingsLocation | undefined {
  const templated: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec)) {
    const variable = typeof value === "string" ? soleVariable(referencedVariables(value)) : Array.isArray(value) ? listVariable(value) : undefined;
    if (variable !== undefined) templated[key] = variable;
  }
  if (!Object.keys(templated).length) return settings;
  return { ...(settings ?? { field: "adapter", file: "plugin.json" }), hostVariables: { ...templated, ...settings?.hostVariables } };
}

/** The one variable of `variables`, or undefined when there are none or several. */
function soleVariable(variables: readonly string[]): string | undefined {
  const distinct = new Set(variables);
  return distinct.size === 1 ? [...distinct][0] : undefined;
}

/** A list entry that is a reference and nothing else: `${VAR}` or `${VAR:-default}`. */
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/;

/** The variable a list is set by: every entry exactly `${VAR}` of that one variable, or undefined. */
function listVariable(list: readonly unknown[]): string | undefined {
  const variables = list.map((entry) => (typeof entry === "string" ? WHOLE_REFERENCE.exec(entry)?.[1] : undefined));
  if (variables.length === 0 || variables.some((v) => v === undefined)) return undefined;
  return soleVariable(variables as string[]);
}

/** Build an McpAdapter from a parsed spec. */
export function mcpAdapterFromSpec(
  spec: McpSpec,
  givenOptions: { name: string; env: NodeJS.ProcessEnv; log: Logger; baseDir?: string; shared?: SharedTokenState; settings?: SettingsLocation } & CreateMcpAdapterExtras,
): McpAdapter {
  const settings = withTemplateVariables(givenOptions.settings, spec);
  const options = { ...givenOptions, ...(settings ? { settings } : {}) };
  const redactor = options.redactor ?? createRedactor();
  const common = { name: options.name, hostEnv: options.env, redactor, log: options.log, ...(options.baseDir ? { baseDir: options.baseDir } : {}), ...(options.settings ? { settings: options.settings } : {}) };
  const open =
    spec.transport === "stdio"
      ? createStdioOpener(spec, { ...common, ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}) })
      : lazyHttpOpener(spec, { ...common, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.shared ? { shared: options.shared } : {}) });
  // Over HTTP a refused token is answered naming where it came from (the variable or the token store).
  const credentials = spec.transport === "stdio" ? undefined : () => describeCredentials(spec.auth, options.env, options.baseDir);
  return new McpAdapter({
    name: options.name,
    open,
    redactor,
    log: options.log,
    timeoutMs: spec.timeoutMs,
    idleTimeoutMs: spec.idleTimeoutMs,
    ...(spec.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: spec.maxConcurrentCalls } : {}),
    // Resolved as a token store's path is: `~`, `${VAR}`, relative to the plugin's folder.
    ...(spec.lockFile !== undefined ? { lockFile: resolveStorePath(spec.lockFile, options.env, options.baseDir, "adapter.lockFile") } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    ...(credentials ? { credentials } : {}),
  });
}

function pluginName(options: AdapterOptions): string {
  const { prefix, name } = options.manifest;
  if (typeof prefix === "string" && prefix) return prefix;
  if (typeof name === "string" && name) return name;
  return "mcp";
}

export const createMcpAdapter: DeclarativeAdapterFactory = (spec, options) =>
  mcpAdapterFromSpec(parseMcpSpec(spec), {
    name: pluginName(options),
    env: options.env,
    log: options.log,
    baseDir: options.pluginDir,
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(options.shared ? { shared: options.shared } : {}),
  });
