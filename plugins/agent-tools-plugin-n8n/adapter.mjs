import { createRedactor, mcpAdapterFromSpec, parseMcpSpec } from "agent-tools-runtime/adapters";
import { MCP_PATH, defaultTokenStore, instanceUrl, mcpUrl, mcpUrlVariable, positiveNumber } from "./lib/config.mjs";
import { createN8nRest } from "./lib/rest.mjs";

/**
 * The n8n adapter: n8n's own MCP server for the tools (the runtime's MCP adapter over HTTP, bearer
 * token from $N8N_MCP_TOKEN, else the OAuth token store with refresh), and the REST client the
 * skills use (`n8nRest`). A module adapter rather than a declarative block only because the MCP
 * URL falls back from one variable to another and the skills need the REST client beside it;
 * both halves are the runtime's own pieces and share one redactor, so neither the MCP token nor
 * the API key can reach a result or a log line. The skills reach the REST client through the
 * runtime's gate like any adapter method; `readsOnly` tells it which of those requests only read.
 */

/** The HTTP methods of n8n's REST API that change nothing. */
const READ_HTTP = new Set(["GET", "HEAD"]);
/** POSTs that change nothing: `/audit` generates the security audit report (audit-workflows' nativeAudit). */
const READ_POSTS = new Set(["/audit"]);

/** Whether a REST request (method and path as a skill passes them to `n8nRest.request`) only reads. */
function onlyReads(method, path) {
  if (typeof method !== "string") return false;
  const verb = method.toUpperCase();
  return READ_HTTP.has(verb) || (verb === "POST" && typeof path === "string" && READ_POSTS.has(path));
}

const NO_CONFIRM = "Runs without confirmation (the n8n plugin sets requireConfirm: false).";

export function createN8nAdapter(options) {
  const { env, log } = options;
  const redactor = createRedactor([env.N8N_MCP_TOKEN, env.N8N_API_KEY]);
  const url = mcpUrl(env);
  const instance = instanceUrl(env);
  const readonly = new Set(Array.isArray(options.manifest.readonlyTools) ? options.manifest.readonlyTools : []);
  const spec = parseMcpSpec({
    url,
    // With N8N_MCP_TOKEN set the store is not read: nothing to say about where it is.
    auth: { tokenEnv: "N8N_MCP_TOKEN", tokenStore: env.N8N_MCP_TOKEN_STORE || defaultTokenStore(env, env.N8N_MCP_TOKEN ? undefined : log) },
    ...(positiveNumber(env.N8N_TIMEOUT_MS) ? { timeoutMs: positiveNumber(env.N8N_TIMEOUT_MS) } : {}),
  });
  // The URL, timeout and token come from the host's N8N_* variables, not from plugin.json: hints
  // that say what to correct ("correct N8N_INSTANCE_URL") name the variable the user set.
  const settings = {
    ...(options.settings ?? { field: "adapter", file: "plugin.json" }),
    hostVariables: { url: mcpUrlVariable(env), timeoutMs: "N8N_TIMEOUT_MS", auth: "N8N_MCP_TOKEN" },
    // N8N_INSTANCE_URL is the instance's base address, not the MCP endpoint the generic hint asks for.
    ...(env.N8N_MCP_URL ? {} : { urlMeaning: `the n8n instance's base address (e.g. https://n8n.example.com: the plugin adds ${MCP_PATH}), with MCP access turned on in the instance's settings` }),
  };
  const mcp = mcpAdapterFromSpec(spec, { name: "n8n", env, log, baseDir: options.pluginDir, redactor, settings });
  const n8nRest = createN8nRest({ instance, env, log, redactor, timeoutMs: positiveNumber(env.N8N_TIMEOUT_MS) ?? 30_000 });

  return {
    n8nRest,
    async listTools() {
      const { tools } = await mcp.listTools();
      // Say plainly on every tool that changes data that no confirmation is asked for.
      return {
        tools: tools.map((tool) =>
          readonly.has(tool.name) || tool.annotations?.readOnlyHint === true
            ? tool
            : { ...tool, description: `${tool.description ? `${tool.description.trim()} ` : ""}${NO_CONFIRM}` },
        ),
      };
    },
    call: (name, args, ctx) => mcp.call(name, args, ctx),
    // What the skills' REST calls do, for the runtime's write gate: listing, GET/HEAD and the
    // security audit's POST only read; every other request (POST, PATCH, PUT, DELETE) is a change,
    // refused for a read-only team identity and audited.
    // requireKey reads the host's environment only.
    readsOnly: (method, args) => method === "n8nRest.listAll" || method === "n8nRest.requireKey" || (method === "n8nRest.request" && onlyReads(args[0], args[1])),
    onToolsChanged: (listener) => mcp.onToolsChanged(listener),
    close: () => mcp.close(),
  };
}
