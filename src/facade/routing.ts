import { RuntimeError } from "../runtime/errors.js";
import type { Repair } from "../runtime/repair.js";
import { foldedMatch, foldName, levenshtein, similarity } from "../runtime/similarity.js";
import { COMPACT_CALL_TOOL, COMPACT_RUN_SKILL_TOOL, facadeToolName, SEARCH_TOOL, type FacadeOperation, type FacadeRoute } from "./tools.js";
import { isPlainObject } from "../plain-object.js";
import { echoedMasked, MAX_NAME_CHARS, MCP_NAME_CHARS, readPluginArgument, type Mask } from "../runtime/argument-value.js";
import { confirmKept, toolArgumentsOf, type CallPlace } from "../runtime/redirect.js";
import { WITHHELD_HINT } from "../plugins/tool-filter.js";
import { didYouMean } from "../runtime/near-names.js";

/**
 * Which facade tool a call reaches. The rule is that routing never changes the target of a call:
 * - an explicit `plugin` argument is always honoured (and a per-plugin tool whose own plugin
 *   differs from it runs nothing);
 * - a facade tool name that does not exist is mended only when its plugin part is a real prefix
 *   after case and `-`/`_` folding, or an unambiguous prefix of exactly one, and its tool kind is a
 *   near miss of a real one (`_cal` → `_call`, `_run_skil` → `_run_skill`);
 * - anything else answers UNKNOWN_FACADE_TOOL with the nearest real names, and nothing runs.
 * The old rule (similarity of the whole name ≥ 0.6, or the shape of the arguments) let the shared
 * `agent_tools_` prefix alone carry a confirmed write from `agent_tools_prod_db_call`'s neighbours
 * to `dev_db`; names are no longer scored as a whole.
 */

type PluginOperation = "discover" | "call" | "run_skill";

/** A sent name as an answer quotes it: masked by the fleet's redactor, then cut (echoedMasked). */
type Quote = (text: string) => string;

export interface Routed {
  route: FacadeRoute;
  /** The arguments the route's operation receives (a `plugin` the route already names is taken out). */
  args: unknown;
  repairs: Repair[];
}

export type RoutingOutcome = Routed | { error: RuntimeError };

const KINDS: readonly PluginOperation[] = ["call", "discover", "run_skill"];
/** How far a kind may be misspelt: one edit for `call` (4 letters), two for the longer ones. */
const KIND_EDITS: Readonly<Record<PluginOperation, number>> = { call: 1, discover: 2, run_skill: 2 };
/** The fixed tools, without their `agent_tools_` part, and the edits a near miss may have. */
const FIXED: ReadonlyArray<{ bare: string; operation: FacadeOperation }> = [
  { bare: "help", operation: "help" },
  { bare: "search", operation: "search" },
  { bare: "exec", operation: "exec" },
];
const NAMESPACE = /^agents?_?tools?_/;

function nearKind(word: string): PluginOperation | undefined {
  const folded = word.replace(/_/g, "");
  for (const kind of KINDS) {
    if (word === kind) return kind;
    if (levenshtein(folded, kind.replace(/_/g, "")) <= KIND_EDITS[kind]) return kind;
  }
  return undefined;
}

/** A plugin part of a name: a prefix after folding, or the start of exactly one prefix. */
function pluginFromNamePart(part: string, prefixes: readonly string[]): string | undefined {
  const exact = foldedMatch(part, prefixes);
  if (exact) return exact;
  const starting = prefixes.filter((p) => foldName(p).startsWith(part));
  return starting.length === 1 ? starting[0] : undefined;
}

function explicitPlugin(args: unknown): string | undefined {
  return isPlainObject(args) && typeof args.plugin === "string" && args.plugin.trim() ? args.plugin.trim() : undefined;
}

/**
 * A `plugin` that is no prefix at all (5, "", ["fx"]) sent where routing reads it: the caller named
 * a target that cannot be read, so nothing runs (never read as "not given", which would route the
 * call by its name alone). `null` counts as not given, as on every facade tool.
 */
function unreadablePlugin(args: unknown, name: string, prefix: string | undefined): { error: RuntimeError } | undefined {
  const read = readPluginArgument(isPlainObject(args) ? args.plugin : undefined);
  if (read.ok) return undefined;
  const fix = prefix !== undefined ? `${name} belongs to plugin '${prefix}': leave 'plugin' out` : `Send a plugin's prefix as a string (help and search hits show each)`;
  return {
    error: new RuntimeError("ARG_VALIDATION_FAILED", `'plugin' must be a plugin's prefix, as a string; got ${read.got}; nothing was run. ${fix}`, {
      errors: [{ path: "/plugin", message: prefix !== undefined ? `must be '${prefix}' or absent on ${name}` : "must be a non-empty string (a plugin's prefix) or absent" }],
    }),
  };
}

function withoutPlugin(args: unknown): unknown {
  if (!isPlainObject(args) || !("plugin" in args)) return args;
  const { plugin: _plugin, ...rest } = args;
  return rest;
}

/**
 * The nearest real tool names to what was sent: same kind first, then by likeness of the rest of
 * the name. Only names the caller can see in tools/list are offered (`listed`): a plugin that is
 * not configured keeps its routes (a call made anyway answers NOT_CONFIGURED with the fix) but is
 * no tool to suggest.
 */
function nearestTools(sent: string, routes: ReadonlyMap<string, FacadeRoute>, listed: Iterable<string>, kind?: FacadeOperation, limit = 5): string[] {
  const scored = [...listed].map((name) => ({ name, score: similarity(sent, name) + (kind && routes.get(name)?.operation === kind ? 1 : 0) }));
  return scored
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name);
}

function unknownTool(quote: Quote, sent: string, routes: ReadonlyMap<string, FacadeRoute>, listed: Iterable<string>, why: string, kind?: FacadeOperation): { error: RuntimeError } {
  const tools = nearestTools(sent, routes, listed, kind);
  return {
    // The message names the nearest (near-names.ts); `details.tools` lists them all, said once.
    error: new RuntimeError("UNKNOWN_FACADE_TOOL", `this server has no tool '${quote(sent)}'${why ? ` (${why})` : ""}; nothing was run${didYouMean(tools, "tools")}`, {
      tools,
    }),
  };
}

/**
 * UNKNOWN_FACADE_TOOL that says the one call to make instead, copied into `details.next` (the
 * facade tool and its arguments, the tool's name filled in): a plugin's tool named where a facade
 * tool goes (`agent_tools_tasks_list_tasks`), or a tool sent to `_run_skill` of a plugin that has
 * no skills. Nothing was run: the model makes the call, so a name that is not the plugin's tool
 * is answered by the plugin (UNKNOWN_TOOL with its near names), not guessed here.
 *
 * `next` holds the name whole (the message and hint quote it cut: they are read, `next` is copied);
 * a top-level `confirm` stays at the top level when the caller sent it to this plugin's tool of this
 * name (`sentTo`, redirect.ts's confirmKept), and is left out for a bare name no plugin was named
 * for. A name longer than a tool's can be (MCP's 128 characters for a name read from the call; the
 * runtime's bound for one a catalog holds, `known`) gets no `next`: no plugin has it, and the
 * answer says so.
 */
function leadToCall(
  quote: Quote,
  sent: string,
  why: string,
  prefix: string,
  toolName: string,
  args: unknown,
  sentTo: CallPlace,
  routes: ReadonlyMap<string, FacadeRoute>,
  listed: Iterable<string>,
  excludedTool: ExcludedTool | undefined,
  known = false,
): { error: RuntimeError } | undefined {
  const compact = routes.has(COMPACT_CALL_TOOL);
  const tool = compact ? COMPACT_CALL_TOOL : facadeToolName(prefix, "call");
  if (!routes.has(tool)) return undefined;
  const bound = known ? MAX_NAME_CHARS : MCP_NAME_CHARS;
  if (toolName.length > bound) {
    return unknownTool(quote, sent, routes, listed, `${why}; a tool name of ${toolName.length} characters is longer than a tool's can be (${bound}), so plugin '${prefix}' has no such tool`, "call");
  }
  // A tool the user's config keeps out: followed, the call would be refused (FORBIDDEN), so no `next` leads there.
  const excluded = excludedTool?.(prefix, toolName);
  if (excluded) {
    const tools = nearestTools(sent, routes, listed);
    return { error: new RuntimeError("UNKNOWN_FACADE_TOOL", `this server has no tool '${quote(sent)}' (${why}; ${excluded}); nothing was run`, { tools }, WITHHELD_HINT) };
  }
  const shown = quote(toolName);
  const next = { tool, arguments: { ...(compact ? { plugin: prefix } : {}), toolName, arguments: toolArgumentsOf(args), ...confirmKept(args, sentTo, { plugin: prefix, name: toolName }) } };
  const tools = [tool, ...nearestTools(sent, routes, listed).filter((t) => t !== tool)].slice(0, 5);
  const call = `${tool} with ${compact ? `plugin '${prefix}' and ` : ""}toolName '${shown}'`;
  return {
    error: new RuntimeError(
      "UNKNOWN_FACADE_TOOL",
      `this server has no tool '${quote(sent)}' (${why}); nothing was run. To run tool '${shown}' of plugin '${prefix}', call ${call}, as \`details.next\` says`,
      { tools, next },
      `Nothing was run. Make the call in \`details.next\` (its tool, with its arguments as they are); if plugin '${prefix}' has no tool '${shown}', that answer names its near tools.`,
    ),
  };
}

/** The plugins whose listed (or cached) catalog has a tool of that name, with its name there (runtime.ts toolOwners). */
export type ToolOwners = (name: string) => ReadonlyArray<{ plugin: string; name: string }>;

/** Why plugin `prefix` does not serve the tool `name` names (its config entry keeps it out), or undefined (runtime.ts excludedTool). */
export type ExcludedTool = (prefix: string, name: string) => string | undefined;

/**
 * A plugin's tool named bare where a facade tool goes (`list_tasks`): the call that runs it when
 * one plugin has it; the plugins that do when several (nothing is guessed). Looked up only in
 * catalogs in memory: no downstream is started for an answer.
 */
function ownersOf(quote: Quote, sent: string, args: unknown, routes: ReadonlyMap<string, FacadeRoute>, listed: Iterable<string>, toolOwners: ToolOwners | undefined, excludedTool: ExcludedTool | undefined): { error: RuntimeError } | undefined {
  const owners = toolOwners?.(sent.trim()) ?? [];
  const [only] = owners;
  if (owners.length === 1 && only) {
    // No plugin was named: the catalogs found this one, so the caller's confirm is not carried to it.
    return leadToCall(quote, sent, `'${quote(only.name)}' is a tool of plugin '${only.plugin}', not a facade tool`, only.plugin, only.name, args, { name: sent.trim() }, routes, listed, excludedTool, true);
  }
  if (owners.length < 2) return undefined;
  return unknownTool(quote, sent, routes, listed, `it is a tool of plugins ${owners.map((o) => `'${o.plugin}'`).join(" and ")}: call it through one plugin's call tool with toolName '${quote(owners[0]?.name ?? sent)}'`, "call");
}

/** `<plugin>_<tool>` read from a facade name that names no kind (`tasks_list_tasks`): the plugin a part names exactly, and the rest of the name as sent. */
function pluginAndTool(sent: string, bare: string, prefixes: readonly string[]): { prefix: string; tool: string } | undefined {
  const trimmed = sent.trim();
  for (let i = bare.indexOf("_"); i > 0; i = bare.indexOf("_", i + 1)) {
    const prefix = foldedMatch(bare.slice(0, i), prefixes);
    const tool = trimmed.slice(trimmed.length - (bare.length - i - 1));
    if (prefix && tool) return { prefix, tool };
  }
  return undefined;
}

/**
 * A per-plugin tool called with a `plugin` argument: honoured only when both name the same plugin.
 * The other plugin's tool is named when `plugin` is one (`prefixes`); else the answer says it is none.
 */
function checkExplicitPlugin(quote: Quote, name: string, route: FacadeRoute, args: unknown, prefixes: readonly string[]): RoutingOutcome {
  const unreadable = unreadablePlugin(args, name, route.prefix);
  if (unreadable) return unreadable;
  const explicit = explicitPlugin(args);
  if (explicit === undefined || route.prefix === undefined) return { route, args: withoutPlugin(args), repairs: [] };
  if (foldedMatch(explicit, [route.prefix])) return { route, args: withoutPlugin(args), repairs: [] };
  const real = foldedMatch(explicit, prefixes);
  const instead = real === undefined ? `'${quote(explicit)}' is not a plugin here: leave 'plugin' out` : `Call ${facadeToolName(real, route.operation as PluginOperation)}, or leave 'plugin' out`;
  return {
    error: new RuntimeError(
      "ARG_VALIDATION_FAILED",
      `'plugin' is '${quote(explicit)}' but ${name} belongs to plugin '${route.prefix}'; nothing was run. ${instead}`,
      { errors: [{ path: "/plugin", message: `must be '${route.prefix}' or absent on ${name}` }] },
    ),
  };
}

/**
 * Resolve a tools/call name to a route. Known names route as they are; unknown names go through
 * the narrow repairs above, and everything else is an error. `prefixes` are the plugins' (compact
 * mode has no per-plugin tool to read them from). `listed`: the names the caller's tools/list
 * shows, the only ones an error suggests (every route's name when not given).
 */
export function resolveFacadeTool(
  sent: string,
  args: unknown,
  routes: ReadonlyMap<string, FacadeRoute>,
  prefixes: readonly string[],
  listed: Iterable<string> = routes.keys(),
  toolOwners?: ToolOwners,
  excludedTool?: ExcludedTool,
  mask?: Mask,
): RoutingOutcome {
  // Every name and `plugin` the caller sent is masked before it is cut: a token in a name cut at
  // 80 characters first could leave a part too short for the redactor to know, and show it.
  const quote: Quote = (text) => echoedMasked(text, mask);
  const known = routes.get(sent);
  if (known) {
    if (known.prefix !== undefined) return checkExplicitPlugin(quote, sent, known, args, prefixes);
    // Compact _call/_run_skill read the plugin from `plugin` (help and search read their own).
    const compactCall = known.operation === "call" || known.operation === "run_skill";
    return (compactCall && unreadablePlugin(args, sent, undefined)) || { route: known, args, repairs: [] };
  }

  const folded = foldName(sent);
  const bare = folded.replace(NAMESPACE, "");
  const compact = routes.has(COMPACT_CALL_TOOL);

  // A fixed tool with its name misspelt (agent_tools_serch, agent_tools_Help).
  for (const fixed of FIXED) {
    const name = `agent_tools_${fixed.bare}`;
    const route = routes.get(name);
    if (route && levenshtein(bare, fixed.bare) <= (fixed.bare.length > 4 ? 2 : 1)) {
      return { route, args, repairs: [{ kind: "routed-facade-tool", message: `unknown tool '${quote(sent)}' was read as '${name}'` }] };
    }
  }

  const explicit = explicitPlugin(args);
  const explicitPrefix = explicit === undefined ? undefined : foldedMatch(explicit, prefixes);
  // Every way to read the name as <plugin part>_<kind>; the plugin part may be empty (agent_tools_call).
  const readings: Array<{ kind: PluginOperation; part: string }> = [];
  const kind0 = nearKind(bare);
  if (kind0) readings.push({ kind: kind0, part: "" });
  for (let i = bare.indexOf("_"); i > 0; i = bare.indexOf("_", i + 1)) {
    const kind = nearKind(bare.slice(i + 1));
    if (kind) readings.push({ kind, part: bare.slice(0, i) });
  }
  if (readings.length === 0) {
    // A plugin's own tool named as a facade tool (agent_tools_tasks_list_tasks): the call that runs it.
    const merged = pluginAndTool(sent, bare, prefixes);
    const lead = merged && leadToCall(quote, sent, `'${quote(merged.tool)}' is not a facade tool`, merged.prefix, merged.tool, args, { plugin: merged.prefix, name: merged.tool }, routes, listed, excludedTool);
    return lead || ownersOf(quote, sent, args, routes, listed, toolOwners, excludedTool) || unknownTool(quote, sent, routes, listed, "");
  }
  // A name that could be mended is not mended by the name alone when `plugin` says something unreadable.
  const unreadable = unreadablePlugin(args, sent, undefined);
  if (unreadable) return unreadable;

  const targets = new Map<string, { route: FacadeRoute; name: string; args: unknown; kind: PluginOperation }>();
  let why = "";
  let noSkills: { prefix: string; skill: string } | undefined;
  for (const { kind, part } of readings) {
    const fromName = part ? pluginFromNamePart(part, prefixes) : undefined;
    if (part && !fromName) {
      why = `'${quote(part)}' is not a plugin here`;
      continue;
    }
    if (fromName && explicit !== undefined && explicitPrefix !== fromName) {
      return {
        error: new RuntimeError("ARG_VALIDATION_FAILED", `the tool name '${quote(sent)}' names plugin '${fromName}' but 'plugin' is '${quote(explicit)}'; nothing was run. Say one plugin only`, {
          errors: [{ path: "/plugin", message: `contradicts the tool name (plugin '${fromName}')` }],
        }),
      };
    }
    const prefix = fromName ?? explicitPrefix;
    if (explicit !== undefined && explicitPrefix === undefined) {
      why = `'plugin' is '${quote(explicit)}', which is not a plugin here`;
      continue;
    }
    if (compact) {
      // Compact mode: every plugin's operation is one tool taking `plugin`; discover is search with a plugin.
      const name = kind === "call" ? COMPACT_CALL_TOOL : kind === "run_skill" ? COMPACT_RUN_SKILL_TOOL : SEARCH_TOOL;
      const route = routes.get(name);
      if (!route) continue;
      const routedArgs = prefix !== undefined && isPlainObject(args) ? { ...args, plugin: prefix } : args;
      targets.set(`${name}|${prefix ?? ""}`, { route, name, args: routedArgs, kind });
      continue;
    }
    if (prefix === undefined) {
      why = "it names no plugin: per-plugin tools are agent_tools_<plugin>_<call|discover|run_skill>";
      continue;
    }
    const name = facadeToolName(prefix, kind);
    const route = routes.get(name);
    if (!route) {
      why = `plugin '${prefix}' has no ${kind} tool`;
      // A skill name sent to a plugin without skills is most often one of its tools (read_file).
      if (kind === "run_skill" && isPlainObject(args) && typeof args.skill === "string" && args.skill.trim()) noSkills ??= { prefix, skill: args.skill.trim() };
      continue;
    }
    targets.set(name, { route, name, args: withoutPlugin(args), kind });
  }
  if (targets.size === 1) {
    const [target] = targets.values();
    if (!target) return unknownTool(quote, sent, routes, listed, why);
    const said = explicit !== undefined ? ` ('plugin' is '${quote(explicit)}')` : "";
    return { route: target.route, args: target.args, repairs: [{ kind: "routed-facade-tool", message: `unknown tool '${quote(sent)}' was read as '${target.name}'${said}` }] };
  }
  if (targets.size === 0 && noSkills) {
    const lead = leadToCall(quote, sent, `plugin '${noSkills.prefix}' has no skills`, noSkills.prefix, noSkills.skill, args, { plugin: noSkills.prefix, name: noSkills.skill }, routes, listed, excludedTool);
    if (lead) return lead;
  }
  if (targets.size > 1) why = `it could mean ${[...targets.values()].map((t) => `'${t.name}'`).join(" or ")}`;
  return unknownTool(quote, sent, routes, listed, why, readings[0]?.kind);
}
