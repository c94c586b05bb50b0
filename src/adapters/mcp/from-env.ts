import { createLogger } from "../../log.js";
import type { Logger, SettingsLocation } from "../types.js";
import { createRedactor, type Redactor } from "../shared/redact.js";
import type { McpAdapter } from "./adapter.js";
import { McpSpecError } from "./errors.js";
import { mcpAdapterFromSpec } from "./factory.js";
import { parseMcpSpec, type McpSpec } from "./spec.js";

/**
 * Small library constructors for hand-written plugin adapters and skills: an MCP client
 * configured from environment variables, returning the same Adapter as the declarative kind.
 */

export interface FromEnvOptions {
  log?: Logger;
  name?: string;
  baseDir?: string;
  /**
   * The variable the URL came from, named in hints ("check N8N_MCP_URL in the server's
   * environment"); default AGENT_MCP_URL. A module that maps its own variables onto these names
   * (n8n-mcp) passes its own.
   */
  urlVariable?: string;
}

/** Where a setting read from the environment is written: its variable, for hints that say what to change. */
function fromVariables(variables: Record<string, string>): SettingsLocation {
  return { field: "env", file: "the server's environment", hostVariables: variables };
}

/** Generic HTTP MCP client: AGENT_MCP_URL, optional AGENT_MCP_TOKEN (bearer), AGENT_MCP_TIMEOUT_MS. */
export function mcpClientFromEnv(env: NodeJS.ProcessEnv = process.env, options: FromEnvOptions = {}): McpAdapter {
  const url = env.AGENT_MCP_URL;
  if (!url) throw new McpSpecError("AGENT_MCP_URL", "is not set; set it to the MCP server's URL");
  const spec = parseMcpSpec(
    {
      url,
      ...(env.AGENT_MCP_TOKEN ? { auth: { tokenEnv: "AGENT_MCP_TOKEN" } } : {}),
      ...(env.AGENT_MCP_TIMEOUT_MS ? { timeoutMs: Number(env.AGENT_MCP_TIMEOUT_MS) } : {}),
    },
    "env",
  );
  if (spec.transport !== "http") throw new McpSpecError("AGENT_MCP_URL", "must be an http(s) URL");
  const settings = fromVariables({ url: options.urlVariable ?? "AGENT_MCP_URL", timeoutMs: "AGENT_MCP_TIMEOUT_MS", auth: "AGENT_MCP_TOKEN" });
  return adapterFor(spec, env, options, "mcp", createRedactor([env.AGENT_MCP_TOKEN]), settings);
}

/** JSON array (`["-y","pkg"]`) or a space-separated list (quotes group words). */
export function parseArgsValue(value: string | undefined): string[] {
  const text = (value ?? "").trim();
  if (!text) return [];
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new McpSpecError("AGENT_STDIO_MCP_ARGS", "looks like JSON but does not parse");
    }
    if (!Array.isArray(parsed)) throw new McpSpecError("AGENT_STDIO_MCP_ARGS", "must be a JSON array of strings");
    return parsed.map(String);
  }
  const out: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(match[1] ?? match[2] ?? match[3] ?? "");
  return out;
}

/**
 * stdio MCP client: AGENT_STDIO_MCP_COMMAND, AGENT_STDIO_MCP_ARGS (JSON array or space-separated),
 * AGENT_STDIO_MCP_ENV (JSON object; `${VAR}` resolved from `env`), AGENT_STDIO_MCP_CWD,
 * AGENT_STDIO_MCP_TIMEOUT_MS.
 */
export function stdioMcpClientFromEnv(env: NodeJS.ProcessEnv = process.env, options: FromEnvOptions = {}): McpAdapter {
  const command = env.AGENT_STDIO_MCP_COMMAND;
  if (!command) throw new McpSpecError("AGENT_STDIO_MCP_COMMAND", "is not set; set it to the server's command");
  let childEnv: unknown = {};
  if (env.AGENT_STDIO_MCP_ENV) {
    try {
      childEnv = JSON.parse(env.AGENT_STDIO_MCP_ENV);
    } catch {
      throw new McpSpecError("AGENT_STDIO_MCP_ENV", "must be a JSON object");
    }
  }
  const spec = parseMcpSpec(
    {
      command,
      args: parseArgsValue(env.AGENT_STDIO_MCP_ARGS),
      env: childEnv,
      ...(env.AGENT_STDIO_MCP_CWD ? { cwd: env.AGENT_STDIO_MCP_CWD } : {}),
      ...(env.AGENT_STDIO_MCP_TIMEOUT_MS ? { timeoutMs: Number(env.AGENT_STDIO_MCP_TIMEOUT_MS) } : {}),
    },
    "env",
  );
  if (spec.transport !== "stdio") throw new McpSpecError("AGENT_STDIO_MCP_COMMAND", "must be a command");
  const settings = fromVariables({ command: "AGENT_STDIO_MCP_COMMAND", args: "AGENT_STDIO_MCP_ARGS", env: "AGENT_STDIO_MCP_ENV", cwd: "AGENT_STDIO_MCP_CWD", timeoutMs: "AGENT_STDIO_MCP_TIMEOUT_MS" });
  return adapterFor(spec, env, options, "stdio-mcp", createRedactor(), settings);
}

/** The declarative kind's own constructor (factory.ts), so both ways of configuring build the same adapter. */
function adapterFor(spec: McpSpec, env: NodeJS.ProcessEnv, options: FromEnvOptions, defaultName: string, redactor: Redactor, settings: SettingsLocation): McpAdapter {
  return mcpAdapterFromSpec(spec, {
    name: options.name ?? defaultName,
    settings,
    env,
    log: options.log ?? createLogger("mcp"),
    redactor,
    ...(options.baseDir ? { baseDir: options.baseDir } : {}),
  });
}
