import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where the n8n instance is, from the host's N8N_* variables only (never from tool arguments):
 * the MCP endpoint is N8N_MCP_URL, else N8N_INSTANCE_URL + /mcp-server/http; the instance (for
 * the REST API at <instance>/api/v1) is N8N_INSTANCE_URL, else N8N_MCP_URL without its
 * /mcp-server/... path (without such a path, none: the skills then ask for N8N_INSTANCE_URL).
 */

export const MCP_PATH = "/mcp-server/http";
/** The token store's place under a config folder ($XDG_CONFIG_HOME, else ~/.config). */
const STORE_IN_CONFIG = path.join("agent-tools", "n8n", "tokens.json");

/**
 * The OAuth token store used when N8N_MCP_TOKEN_STORE is unset: under $XDG_CONFIG_HOME like the
 * runtime's user config file, else ~/.config. A relative XDG_CONFIG_HOME counts as unset (the XDG
 * spec says to ignore it; resolved here it would put tokens inside the installed plugin).
 *
 * Earlier versions always used ~/.config. With XDG_CONFIG_HOME elsewhere and no store there, a
 * store still at ~/.config is the one used, and refreshed tokens are written back to it: writing
 * them to the new place would leave the old file with a refresh token the server may have
 * rotated away, for any older install still reading it. Said once (`log`), with how to move it.
 */
export function defaultTokenStore(env, log) {
  const legacy = path.join(env.HOME || os.homedir(), ".config", STORE_IN_CONFIG);
  const configHome = env.XDG_CONFIG_HOME;
  if (!configHome || !path.isAbsolute(configHome)) return legacy;
  const store = path.join(configHome, STORE_IN_CONFIG);
  if (store === legacy || existsSync(store) || !existsSync(legacy)) return store;
  log?.warn(
    `n8n: using the OAuth token store ${legacy}, where earlier versions kept it: ${store} (under XDG_CONFIG_HOME) does not exist. ` +
      `Refreshed tokens are written back to ${legacy}; move the file to ${store} or set N8N_MCP_TOKEN_STORE to choose.`,
  );
  return legacy;
}

function trimSlash(url) {
  return url.replace(/\/+$/, "");
}

/**
 * A URL variable as given, checked: one that is not an http(s) URL names the variable and the
 * form it needs (the value itself is not quoted: a malformed one may still carry credentials).
 */
function urlFrom(env, variable, example) {
  const value = env[variable].trim();
  let parsed;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new Error(`n8n: ${variable} is not an http:// or https:// URL; set it to the full address, e.g. ${example}`);
  }
  return trimSlash(value);
}

/**
 * Why the skills have no instance: N8N_MCP_URL has no /mcp-server/ in its path, so where the REST
 * API (and the API key) goes cannot be told from it. Guessing its origin could send the key to a
 * proxy or another service on that host.
 */
export const NO_INSTANCE =
  "the n8n skills need the instance's address: N8N_MCP_URL has no /mcp-server/ in its path, so the REST API's address cannot be taken from it. Set N8N_INSTANCE_URL to the n8n instance (e.g. https://n8n.example.com) in the environment of the agent-tools server, then restart it";

/** The instance (for <instance>/api/v1), or undefined when it cannot be told (NO_INSTANCE). */
export function instanceUrl(env) {
  if (env.N8N_INSTANCE_URL) return urlFrom(env, "N8N_INSTANCE_URL", "https://n8n.example.com");
  if (!env.N8N_MCP_URL) return undefined;
  const mcp = urlFrom(env, "N8N_MCP_URL", "https://n8n.example.com/mcp-server/http");
  const at = mcp.indexOf("/mcp-server/");
  return at === -1 ? undefined : mcp.slice(0, at);
}

/** The variable the MCP endpoint comes from (mcpUrl), for hints that say what to correct. */
export function mcpUrlVariable(env) {
  return env.N8N_MCP_URL ? "N8N_MCP_URL" : "N8N_INSTANCE_URL";
}

export function mcpUrl(env) {
  if (env.N8N_MCP_URL) return urlFrom(env, "N8N_MCP_URL", "https://n8n.example.com/mcp-server/http");
  if (env.N8N_INSTANCE_URL) return `${urlFrom(env, "N8N_INSTANCE_URL", "https://n8n.example.com")}${MCP_PATH}`;
  return undefined;
}

export function positiveNumber(value) {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
