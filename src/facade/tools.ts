import type { FacadeMode } from "../runtime/facade-mode.js";
import type { PluginSummary } from "../runtime/runtime.js";

/**
 * The facade's tool definitions: a few fixed tools, and per plugin a discover/call/run_skill trio.
 * Descriptions are short and say when to use each tool; the real catalog stays behind discover.
 */

export type FacadeOperation = "help" | "search" | "discover" | "call" | "run_skill" | "exec";

export interface FacadeTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
  annotations?: { readOnlyHint?: boolean; title?: string };
}

export interface FacadeRoute {
  operation: FacadeOperation;
  /** The plugin, for per-plugin tools; compact tools take it from the arguments' `plugin`. */
  prefix?: string;
}

export const HELP_TOOL = "agent_tools_help";

/**
 * `arguments` is an object, but a JSON string of one is let through: models send that often, and
 * a client that checks calls against this schema would reject it before the runtime's repair
 * (which parses it, and says so in `repairs`) could run.
 */
const ARGUMENTS = { type: ["object", "string"] } as const;
const EXEC_TOOL = "agent_tools_exec";

/**
 * The text layer's tool: a persistent sandboxed shell in which plugins are commands. As listed
 * where the connection is the workspace (stdio, a 2025-era HTTP session): one shell for the whole
 * connection, so no `workspace` argument is listed there (one sent anyway, from a list made
 * elsewhere, is refused: runtime/workspace-argument.ts).
 */
export const EXEC_FACADE_TOOL: FacadeTool = {
  name: EXEC_TOOL,
  description:
    "A persistent sandboxed shell (files, env, cwd kept) where each plugin is a command printing JSON: `<prefix> discover WORDS`, `<prefix> call TOOL '{json}' [--confirm]`, `<prefix> skill NAME`; cut big results with jq, grep, head. Also `status`, `list`, `load commands/<module>`.",
  inputSchema: {
    type: "object",
    properties: {
      command: { type: "string", description: "A command above or a shell line, e.g. `memory call read_graph | jq '.result.entities | length'`." },
    },
    required: ["command"],
  },
};

/**
 * agent_tools_exec as a 2026-07-28 HTTP caller lists it: it has no session, so the `workspace`
 * handle of an earlier answer names the shell to continue (transports/http/modern.ts).
 */
export const EXEC_FACADE_TOOL_WITH_WORKSPACE: FacadeTool = {
  ...EXEC_FACADE_TOOL,
  inputSchema: {
    ...EXEC_FACADE_TOOL.inputSchema,
    properties: {
      ...EXEC_FACADE_TOOL.inputSchema.properties,
      // Mirrored by 2026-07-28 clients into `Mcp-Param-Workspace`, so a balancer can route to the instance holding the shell.
      workspace: { type: "string", "x-mcp-header": "Workspace", description: "The `workspace` of an earlier answer (same shell state)." },
    },
  },
};

export const SEARCH_TOOL = "agent_tools_search";
export const COMPACT_CALL_TOOL = "agent_tools_call";
export const COMPACT_RUN_SKILL_TOOL = "agent_tools_run_skill";

export interface FacadeToolOptions {
  mode?: FacadeMode;
  /**
   * The text layer's tool (agent_tools_exec), when this build has one: listed in both modes,
   * routed to operation "exec". Left out, the facade has no exec tool.
   */
  execTool?: FacadeTool;
  /**
   * Whether the client's user confirms the writes of this plugin (the client can show a form and
   * the plugin's policy is "elicit"): its description then says so instead of asking the model for
   * `confirm: true`. Absent: every plugin needs the flag (the wording for clients that cannot ask).
   */
  userConfirms?: (prefix: string) => boolean;
}

export function facadeToolName(prefix: string, operation: "discover" | "call" | "run_skill"): string {
  return `agent_tools_${prefix}_${operation}`;
}

/**
 * The first sentence (or clause up to a `;`) of `text`, cut at a whole word and ended as a
 * sentence: a clause keeps no `;`, which would read as a line cut off ("… en, fr and de;").
 */
function firstSentence(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const first = /^(.+?[.!?;])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence(cut(first.replace(/;$/, ""), max));
}

/** Ends with a full stop (a learnt summary may not), so the next sentence reads as one. */
function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** At most `max` characters, cut after a whole word ("OLLAMA_API_KEY is…", not "is se…"). */
function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max - 1);
  const space = head.lastIndexOf(" ");
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:(]+$/, "")}…`;
}

const HELP: FacadeTool = {
  name: HELP_TOOL,
  description: "Start here: how to use this server and every plugin (prefix, what it wraps, whether configured).",
  // `plugin` (a prefix) answers that plugin in full; the help answer itself says so (pluginHelp), so
  // the parameter costs no description in every tools/list.
  inputSchema: { type: "object", properties: { plugin: { type: "string" } } },
  annotations: { readOnlyHint: true },
};

const SEARCH: FacadeTool = {
  name: SEARCH_TOOL,
  description: "Search for a tool or skill for a task across all servers, by meaning as well as words; each hit gives the next call. Search before guessing a tool name.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "What you want to do, in a few words." },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "How many hits (default 10)." },
      // Declared because compact mode has no per-plugin discover: help's `next` for one plugin is a
      // search with `plugin`, and clients with strict argument checks drop undeclared properties.
      plugin: { type: "string", description: "Search one plugin (prefix)." },
      detail: { type: "boolean", description: "true: add each hit's input schema." },
    },
    required: ["query"],
  },
  annotations: { readOnlyHint: true },
};

/** A per-plugin discover's parameters. */
const DISCOVER_INPUT: FacadeTool["inputSchema"] = { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } } };

/**
 * The top-level keys help, search and discover read: their input schemas' (the facade says any
 * other key in `repairs`; `_call` and `_run_skill` place theirs in the pipeline; exec's are those
 * of the variant the connection lists, read from it).
 */
export const FACADE_TOOL_KEYS: Readonly<Record<"help" | "search" | "discover", readonly string[]>> = {
  help: Object.keys(HELP.inputSchema.properties),
  search: Object.keys(SEARCH.inputSchema.properties),
  discover: Object.keys(DISCOVER_INPUT.properties),
};

/** Compact mode: the same five tools (four without a text layer) for 1 plugin or 500. */
function compactTools(execTool: FacadeTool | undefined, userConfirms = false): FacadeTool[] {
  return [
    HELP,
    SEARCH,
    ...(execTool ? [execTool] : []),
    {
      name: COMPACT_CALL_TOOL,
      description: `Run one plugin tool by its prefix and name, as a hit gives them. Arguments are checked against the tool's schema; ${userConfirms ? "your user is asked to confirm tools that change data" : "tools that change data need confirm: true"}.`,
      inputSchema: {
        type: "object",
        properties: {
          plugin: { type: "string", description: "The plugin's prefix." },
          toolName: { type: "string", description: "The tool's name." },
          arguments: { ...ARGUMENTS, description: "The tool's arguments (an object)." },
          confirm: { type: "boolean", description: "true to allow a tool that changes data." },
        },
        required: ["plugin", "toolName"],
      },
    },
    {
      name: COMPACT_RUN_SKILL_TOOL,
      description: "Run a plugin's skill: a server-side recipe that makes several calls in one.",
      inputSchema: {
        type: "object",
        properties: {
          plugin: { type: "string", description: "The plugin's prefix." },
          skill: { type: "string", description: "The skill's name." },
          arguments: { ...ARGUMENTS, description: "The skill's arguments (an object)." },
          confirm: { type: "boolean", description: "true to allow a skill whose steps change data." },
        },
        required: ["plugin", "skill"],
      },
    },
  ];
}

/** At most four skill names in a description: a long list costs tokens in every tools/list; discover shows them all. */
function skillList(skills: readonly string[]): string {
  const SHOWN = 4;
  return skills.length <= SHOWN ? skills.join(", ") : `${skills.slice(0, SHOWN).join(", ")} and ${skills.length - SHOWN} more (see _discover)`;
}

export function buildFacadeTools(plugins: readonly PluginSummary[], options: FacadeToolOptions = {}): { tools: FacadeTool[]; routes: Map<string, FacadeRoute> } {
  const routes = new Map<string, FacadeRoute>([
    [HELP_TOOL, { operation: "help" }],
    [SEARCH_TOOL, { operation: "search" }],
  ]);
  if (options.execTool) routes.set(options.execTool.name, { operation: "exec" });
  if (options.mode === "compact") {
    routes.set(COMPACT_CALL_TOOL, { operation: "call" });
    routes.set(COMPACT_RUN_SKILL_TOOL, { operation: "run_skill" });
    const asks = options.userConfirms;
    return { tools: compactTools(options.execTool, asks !== undefined && plugins.length > 0 && plugins.every((p) => !p.requireConfirm || asks(p.prefix))), routes };
  }
  const tools: FacadeTool[] = [HELP, SEARCH, ...(options.execTool ? [options.execTool] : [])];
  for (const plugin of plugins) {
    // A plugin that is not configured costs nothing in tools/list: help and agent_tools_search show
    // it with what to set, and its routes stay, so a call made anyway answers NOT_CONFIGURED with the fix.
    const listed: FacadeTool[] = [];
    const label = plugin.name || plugin.prefix;
    // The hint's first sentence only: tools/list is paid for on every turn, the whole hint is in
    // help and in discover's answers.
    const hint = plugin.discoverHint ? ` ${firstSentence(plugin.discoverHint, 100)}` : "";
    // What the plugin is about, so a client's own tool search tells plugins apart: a generic
    // mcpServers entry's learnt summary, else the first sentence of the description when no hint says it.
    const about = plugin.about ? ` ${sentence(cut(plugin.about, 160))}` : !plugin.discoverHint && plugin.description ? ` ${firstSentence(plugin.description, 100)}` : "";
    const discover = facadeToolName(plugin.prefix, "discover");
    // Per-plugin tools are paid for once per plugin in every tools/list, so their wording is kept
    // to what a model needs to pick the tool (≤ 150 tokens a plugin); details live in the answers.
    listed.push({
      name: discover,
      description: `Find ${label} tools for a task and the call to make (no query: the top ones).${about}${hint}`,
      inputSchema: DISCOVER_INPUT,
      annotations: { readOnlyHint: true },
    });
    routes.set(discover, { operation: "discover", prefix: plugin.prefix });

    const call = facadeToolName(plugin.prefix, "call");
    const gate = !plugin.requireConfirm ? "" : options.userConfirms?.(plugin.prefix) ? " Your user is asked to confirm changes." : " Changes need confirm: true.";
    listed.push({
      name: call,
      description: `Run ${article(label)} ${label} tool from _discover or search.${gate}`,
      inputSchema: {
        type: "object",
        properties: { toolName: { type: "string" }, arguments: ARGUMENTS, ...(plugin.requireConfirm ? { confirm: { type: "boolean" } } : {}) },
        required: ["toolName"],
      },
    });
    routes.set(call, { operation: "call", prefix: plugin.prefix });

    if (plugin.skills.length > 0) {
      const runSkill = facadeToolName(plugin.prefix, "run_skill");
      listed.push({
        name: runSkill,
        description: `Run ${article(label)} ${label} skill (a multi-call recipe): ${skillList(plugin.skills)}.`,
        inputSchema: {
          type: "object",
          properties: { skill: { type: "string" }, arguments: ARGUMENTS, ...(plugin.requireConfirm ? { confirm: { type: "boolean" } } : {}) },
          required: ["skill"],
        },
      });
      routes.set(runSkill, { operation: "run_skill", prefix: plugin.prefix });
    }
    if (plugin.configured) tools.push(...listed);
  }
  return { tools, routes };
}
