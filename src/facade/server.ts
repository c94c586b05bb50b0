import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { OperationResult, PluginSummary, Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import { sharedSchemaValidator } from "../sdk-schema-validator.js";
import { toOperationResult } from "../text/answer.js";
import { availableModuleFiles } from "../text/module-loader.js";
import { packageJson, RUNTIME_ROOT } from "../paths.js";
import { resolveFacadeTool } from "./routing.js";
import { serverInstructions } from "./instructions.js";
import { buildFacadeTools, EXEC_FACADE_TOOL, HELP_TOOL } from "./tools.js";
import { mayUsePlugin } from "../runtime/access.js";

/**
 * The MCP facade: the SDK's low-level Server with handlers for tools/list and tools/call. It maps
 * facade tools onto runtime operations and turns every outcome, errors included, into a tool
 * result with the JSON both as text and as structuredContent. It never touches I/O: a transport
 * is connected by the caller.
 */

export { SERVER_INSTRUCTIONS } from "./instructions.js";

const TEXT_LAYER_HELP =
  "agent_tools_exec runs a shell command line in this session's sandbox (files, env and cwd persist; no host secrets). Each plugin is a command: `<prefix> discover WORDS`, `<prefix> call TOOL '{json}' [--confirm]`, `<prefix> skill NAME` print JSON, so pipe them into jq/grep/head to keep answers small. `status` shows the text modules (`load commands/<name>`).";

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

/** What every session's facade has in common: built once per runtime and visible set, not once per HTTP session. */
interface FacadeShape {
  info: { name: string; version: string };
  options: ConstructorParameters<typeof Server>[1];
  tools: ReturnType<typeof buildFacadeTools>["tools"];
  routes: ReturnType<typeof buildFacadeTools>["routes"];
  prefixes: string[];
}

const shapes = new WeakMap<Runtime, Map<string, FacadeShape>>();

function facadeShape(runtime: Runtime, visible: PluginSummary[]): FacadeShape {
  let byVisible = shapes.get(runtime);
  if (!byVisible) shapes.set(runtime, (byVisible = new Map()));
  const key = visible.map((s) => s.prefix).join(",");
  let shape = byVisible.get(key);
  if (!shape) {
    const pkg = packageJson();
    const { tools, routes } = buildFacadeTools(visible, { mode: runtime.facadeMode, execTool: EXEC_FACADE_TOOL });
    shape = {
      info: { name: pkg.name, version: pkg.version },
      options: { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: serverInstructions(visible, runtime.facadeMode), jsonSchemaValidator: sharedSchemaValidator },
      tools,
      routes,
      prefixes: visible.map((s) => s.prefix),
    };
    byVisible.set(key, shape);
  }
  return shape;
}

export function createFacadeServer({ runtime, session }: FacadeServerOptions): Server {
  // A team identity sees only the plugins it may use: in the tool list, the instructions and help.
  const visible = runtime.summaries().filter((s) => mayUsePlugin(session.identity, s.prefix));
  const { info, options, tools, routes, prefixes } = facadeShape(runtime, visible);
  const server = new Server(info, options);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const sent = request.params.name;
    const resolved = resolveFacadeTool(sent, request.params.arguments ?? {}, routes, prefixes);
    if ("error" in resolved) return toToolResult({ isError: true, payload: { ok: false, error: resolved.error.toPayload() } });
    const { route, args, repairs } = resolved;
    const ctx = { signal: extra.signal, repairs };
    switch (route.operation) {
      case "help": {
        const plugin = args && typeof args === "object" ? (args as { plugin?: unknown }).plugin : undefined;
        const help = runtime.help(typeof plugin === "string" ? plugin : undefined, session);
        // The text modules by file, as the original runtime's help named them (users look for them).
        const text = "plugin" in help ? {} : { textLayer: TEXT_LAYER_HELP, textModules: textModuleFiles() };
        return toToolResult({ isError: false, payload: { ok: true, ...help, ...text, ...(repairs.length ? { repairs: repairs.map((r) => r.message) } : {}) } });
      }
      case "search":
        return toToolResult(await runtime.search(session, args, ctx), { compact: true });
      case "exec": {
        // The text layer is made on first use; just-bash itself loads with the first command line.
        const command = args && typeof args === "object" ? (args as { command?: unknown }).command : undefined;
        // Imported here: a session that never runs a command line never loads the text layer.
        const { textLayerFor } = await import("../text/text-layer.js");
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
