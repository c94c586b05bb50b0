import type { PluginSummary } from "../runtime/runtime.js";

/**
 * The facade's tool definitions: a few fixed tools, and per plugin a discover/call/run_skill trio.
 * Descriptions are short and say when to use each tool; the real catalog stays behind discover.
 */

export type FacadeOperation = "help" | "exec" | "discover" | "call" | "run_skill";

export interface FacadeTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
  annotations?: { readOnlyHint?: boolean; title?: string };
}

export interface FacadeRoute {
  operation: FacadeOperation;
  prefix?: string;
}

export const HELP_TOOL = "agent_tools_help";
export const EXEC_TOOL = "agent_tools_exec";

/** The text layer's tool: a persistent sandboxed shell in which plugins are commands. */
export const EXEC_FACADE_TOOL: FacadeTool = {
  name: EXEC_TOOL,
  description:
    "A sandboxed shell kept for this session (files, env and cwd persist). `status`, `list` (commands), `load commands/<module>`, or a command line: every plugin is a command (`<prefix> discover WORDS`, `<prefix> call TOOL '{json}' [--confirm]`, `<prefix> skill NAME`) printing JSON, so big results can be cut down with jq, grep, head before you read them. No host secrets inside.",
  inputSchema: {
    type: "object",
    properties: { command: { type: "string", description: "`status`, `list`, `load MODULE`, or a shell command line, e.g. `notes call list_notes | jq '.result.notes | length'`." } },
    required: ["command"],
  },
};

export function facadeToolName(prefix: string, operation: Exclude<FacadeOperation, "help" | "exec">): string {
  return `agent_tools_${prefix}_${operation}`;
}

function notConfigured(plugin: PluginSummary): string {
  return plugin.configured ? "" : ` [not configured: ${plugin.missing ?? "requirements missing"}]`;
}

export function buildFacadeTools(plugins: readonly PluginSummary[]): { tools: FacadeTool[]; routes: Map<string, FacadeRoute> } {
  const tools: FacadeTool[] = [
    {
      name: HELP_TOOL,
      description: "Start here: how to use this server, and every connected plugin (prefix, what it wraps, whether it is configured).",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
    },
  ];
  tools.push(EXEC_FACADE_TOOL);
  const routes = new Map<string, FacadeRoute>([
    [HELP_TOOL, { operation: "help" }],
    [EXEC_TOOL, { operation: "exec" }],
  ]);
  for (const plugin of plugins) {
    const label = plugin.name || plugin.prefix;
    const hint = plugin.discoverHint ? ` ${plugin.discoverHint}` : "";
    const discover = facadeToolName(plugin.prefix, "discover");
    tools.push({
      name: discover,
      description: `Find ${label} tools and skills by a few words of what you need (no query: the most useful ones). Answers names, parameters and the exact call to make next.${hint}${notConfigured(plugin)}`,
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", description: "What you want to do, in a few words." },
          limit: { type: "integer", minimum: 1, maximum: 50, description: "How many matches (default 10 with a query, 20 without; at most 50)." },
        },
      },
      annotations: { readOnlyHint: true },
    });
    routes.set(discover, { operation: "discover", prefix: plugin.prefix });

    const call = facadeToolName(plugin.prefix, "call");
    const gate = plugin.requireConfirm
      ? "Tools that change data need confirm: true; read-only tools do not."
      : "This plugin's calls run without confirmation.";
    tools.push({
      name: call,
      description: `Run one ${label} tool found with ${discover}. Arguments are checked against the tool's schema. ${gate}${notConfigured(plugin)}`,
      inputSchema: {
        type: "object",
        properties: {
          toolName: { type: "string", description: "The tool's name as discover shows it." },
          arguments: { type: "object", description: "The tool's arguments.", additionalProperties: true },
          confirm: { type: "boolean", description: "true to allow a tool that changes data." },
        },
        required: ["toolName"],
      },
    });
    routes.set(call, { operation: "call", prefix: plugin.prefix });

    if (plugin.skills.length > 0) {
      const runSkill = facadeToolName(plugin.prefix, "run_skill");
      tools.push({
        name: runSkill,
        description: `Run a ${label} skill: a server-side recipe that makes several calls in one. Skills: ${plugin.skills.join(", ")}. See ${discover} for their arguments.${notConfigured(plugin)}`,
        inputSchema: {
          type: "object",
          properties: {
            skill: { type: "string", description: "The skill's name." },
            arguments: { type: "object", description: "The skill's arguments.", additionalProperties: true },
            confirm: { type: "boolean", description: "true to allow a skill whose steps change data." },
          },
          required: ["skill"],
        },
      });
      routes.set(runSkill, { operation: "run_skill", prefix: plugin.prefix });
    }
  }
  return { tools, routes };
}
