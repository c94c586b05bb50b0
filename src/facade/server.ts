import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { OperationResult, Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import { toOperationResult } from "../text/answer.js";
import { textLayerFor } from "../text/text-layer.js";
import { availableModuleFiles } from "../text/module-loader.js";
import { packageJson, RUNTIME_ROOT } from "../paths.js";
import { resolveFacadeTool } from "./routing.js";
import { serverInstructions } from "./instructions.js";
import { buildFacadeTools, EXEC_FACADE_TOOL, HELP_TOOL } from "./tools.js";

/**
 * The MCP facade: the SDK's low-level Server with handlers for tools/list and tools/call. It maps
 * facade tools onto runtime operations and turns every outcome, errors included, into a tool
 * result with the JSON both as text and as structuredContent. It never touches I/O: a transport
 * is connected by the caller.
 */

export { SERVER_INSTRUCTIONS } from "./instructions.js";

const TEXT_LAYER_HELP =
  "agent_tools_exec runs a shell command line in this session's sandbox (files, env and cwd persist; no host secrets). Each plugin is a command: `<prefix> discover WORDS`, `<prefix> call TOOL '{json}' [--confirm]`, `<prefix> skill NAME` print JSON, so pipe them into jq/grep/head to keep answers small. `status` shows the text modules (`load commands/<name>`).";

/** How long the first tools/list waits for undescribed mcpServers entries to be listed (AGENT_TOOLS_DESCRIBE_WAIT_MS). */
const DESCRIBE_WAIT_MS = 5000;

function describeWaitMs(): number {
  const value = Number(process.env.AGENT_TOOLS_DESCRIBE_WAIT_MS);
  return Number.isFinite(value) && value >= 0 ? value : DESCRIBE_WAIT_MS;
}

/** `commands/<file>` for each text module `load` accepts. */
function textModuleFiles(): string[] {
  return availableModuleFiles(path.join(RUNTIME_ROOT, "commands")).map((file) => `commands/${file}`);
}

/** `compact`: one-line JSON text, for answers that must stay small (agent_tools_search). */
export function toToolResult(outcome: OperationResult, options: { compact?: boolean } = {}): CallToolResult {
  return {
    content: [{ type: "text", text: options.compact ? JSON.stringify(outcome.payload) : JSON.stringify(outcome.payload, null, 2) }],
    structuredContent: outcome.payload,
    isError: outcome.isError,
  };
}

export interface FacadeServerOptions {
  runtime: Runtime;
  session: Session;
}

/** `{plugin, ...rest}` → the plugin's prefix and the arguments the runtime operation expects. */
function pluginFromArguments(args: unknown): { prefix: string; rest: unknown } {
  if (!args || typeof args !== "object" || Array.isArray(args)) return { prefix: "", rest: args };
  const { plugin, ...rest } = args as Record<string, unknown>;
  return { prefix: typeof plugin === "string" ? plugin.trim() : "", rest };
}

export function createFacadeServer({ runtime, session }: FacadeServerOptions): Server {
  const pkg = packageJson();
  const server = new Server(
    { name: pkg.name, version: pkg.version },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: serverInstructions(runtime.summaries(), runtime.facadeMode) },
  );
  const toolOptions = { mode: runtime.facadeMode, execTool: EXEC_FACADE_TOOL };
  // Routes depend on the plugins only; descriptions also on what each plugin turned out to be about.
  const { routes } = buildFacadeTools(runtime.summaries(), toolOptions);
  let described: Promise<void> | undefined;

  const prefixes = runtime.summaries().map((s) => s.prefix);

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // The first listing waits a little for mcpServers entries without a description to say what
    // they are about, so a client's own tool search can tell them apart; later ones come with
    // tools/list_changed.
    if (runtime.facadeMode !== "compact") await (described ??= runtime.describePlugins(describeWaitMs()));
    return { tools: buildFacadeTools(runtime.summaries(), toolOptions).tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const sent = request.params.name;
    const resolved = resolveFacadeTool(sent, request.params.arguments ?? {}, routes, prefixes);
    if ("error" in resolved) return toToolResult({ isError: true, payload: { ok: false, error: resolved.error.toPayload() } });
    const { route, args, repairs } = resolved;
    const ctx = { signal: extra.signal, repairs };
    switch (route.operation) {
      case "help": {
        const plugin = args && typeof args === "object" ? (args as { plugin?: unknown }).plugin : undefined;
        const help = runtime.help(typeof plugin === "string" ? plugin : undefined);
        // The text modules by file, as the original runtime's help named them (users look for them).
        const text = "plugin" in help ? {} : { textLayer: TEXT_LAYER_HELP, textModules: textModuleFiles() };
        return toToolResult({ isError: false, payload: { ok: true, ...help, ...text, ...(repairs.length ? { repairs: repairs.map((r) => r.message) } : {}) } });
      }
      case "search":
        return toToolResult(await runtime.search(session, args, ctx), { compact: true });
      case "exec": {
        // The text layer is made on first use; just-bash itself loads with the first command line.
        const command = args && typeof args === "object" ? (args as { command?: unknown }).command : undefined;
        const answer = await textLayerFor(runtime).exec(session, typeof command === "string" ? command : "", { signal: extra.signal });
        if (repairs.length) Object.assign(answer, { repairs: repairs.map((r) => r.message) });
        return toToolResult(toOperationResult(answer));
      }
      case "discover":
        return toToolResult(await runtime.discover(session, route.prefix ?? "", args, ctx));
      case "call":
      case "run_skill": {
        // Compact tools name the plugin in the arguments; per-plugin tools in their own name.
        const { prefix, rest } = route.prefix !== undefined ? { prefix: route.prefix, rest: args } : pluginFromArguments(args);
        return toToolResult(route.operation === "call" ? await runtime.call(session, prefix, rest, ctx) : await runtime.runSkill(session, prefix, rest, ctx));
      }
    }
  });
  // A downstream catalog changed: tell this client, so it re-reads tools (the facade's
  // descriptions carry skill names and configuration state).
  // The log message says which plugin changed, for clients that show server logs (logging/setLevel
  // filters it per session; the SDK drops it below the level the client set).
  const unsubscribe = runtime.onToolsChanged((prefix) => {
    if (!server.transport) return;
    void server.sendToolListChanged().catch(() => undefined);
    void server.sendLoggingMessage({ level: "info", logger: "agent-tools", data: `the tools of plugin '${prefix}' changed` }, server.transport.sessionId).catch(() => undefined);
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return server;
}

export { HELP_TOOL };
