import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { ToolDescriptor } from "../adapters/types.js";
import { serverInstructions } from "../facade/instructions.js";
import { buildFacadeTools, EXEC_FACADE_TOOL, type FacadeTool } from "../facade/tools.js";
import { FACADE_MODES, type FacadeMode } from "../runtime/facade-mode.js";
import type { Runtime } from "../runtime/runtime.js";

/**
 * `agent-tools tokens`: what the fleet costs in context. Counts, with the o200k BPE encoding, the
 * facade's tools/list in both modes and the same fleet listed flat (every downstream tool as its
 * server lists it), with the reduction and a line per plugin; and the server instructions sent at
 * initialize (most clients put them in the system prompt), made by the server's own builder.
 */

function toolsTokens(tools: readonly unknown[]): number {
  return countTokens(JSON.stringify({ tools }));
}

export interface PluginCost {
  prefix: string;
  tools: number;
  flatTokens: number;
  /**
   * What the plugin's own facade tools (its _discover/_call/_run_skill) add to the per-plugin
   * mode's tools/list; 0 for a plugin that lists none (not configured). Counted inside the list, so
   * the fixed tools' figure and these add up to the mode's total.
   */
  perPluginTokens: number;
  error?: string;
}

export interface ModeCost {
  tools: number;
  tokens: number;
  /** Share saved against the flat listing, 0–1. */
  reduction: number;
}

export interface TokensReport {
  encoding: "o200k_base";
  plugins: number;
  flat: { tools: number; tokens: number };
  modes: Record<FacadeMode, ModeCost>;
  /** The per-plugin mode's fixed tools (agent_tools_help, _search, _exec), paid once whatever the fleet. */
  perPluginFixedTools: string[];
  /** What perPluginFixedTools cost together. */
  perPluginFixedTokens: number;
  /** The server instructions in each mode, as an unrestricted caller gets them. */
  instructionsTokens: Record<FacadeMode, number>;
  perPlugin: PluginCost[];
}

/** One figure per facade mode. */
function eachMode<T>(figure: (mode: FacadeMode) => T): Record<FacadeMode, T> {
  return Object.fromEntries(FACADE_MODES.map((mode) => [mode, figure(mode)])) as Record<FacadeMode, T>;
}

function facadeCost(tools: FacadeTool[], flatTokens: number): ModeCost {
  const tokens = toolsTokens(tools);
  return { tools: tools.length, tokens, reduction: flatTokens > 0 ? 1 - tokens / flatTokens : 0 };
}

export async function tokensReport(runtime: Runtime): Promise<TokensReport> {
  const summaries = runtime.summaries();
  const flatTools: ToolDescriptor[] = [];
  const perPlugin: PluginCost[] = [];
  // The exec tool as `agent-tools mcp` (stdio) lists it: a 2026-07-28 HTTP caller's adds `workspace` (facade/tools.ts).
  const fixed = buildFacadeTools([], { mode: "per-plugin", execTool: EXEC_FACADE_TOOL }).tools;
  for (const summary of summaries) {
    const plugin = runtime.plugin(summary.prefix);
    let tools: ToolDescriptor[] = [];
    let error: string | undefined;
    if (plugin?.adapter) {
      try {
        tools = (await plugin.adapter.listTools()).tools;
      } catch (thrown) {
        error = (thrown as Error).message;
      }
    } else error = summary.missing ? `not configured: ${summary.missing}` : "no adapter";
    flatTools.push(...tools);
    const own = buildFacadeTools([summary], { mode: "per-plugin", execTool: EXEC_FACADE_TOOL }).tools.slice(fixed.length);
    // Its share of the list, not a list of its own: an empty {"tools":[]} wrapper counted 4 tokens
    // for a plugin that adds nothing, and each own list counted its wrapper again.
    const share = own.length ? toolsTokens([...fixed, ...own]) - toolsTokens(fixed) : 0;
    perPlugin.push({ prefix: summary.prefix, tools: tools.length, flatTokens: tools.length ? toolsTokens(tools) : 0, perPluginTokens: share, ...(error ? { error } : {}) });
  }
  const flatTokens = toolsTokens(flatTools);
  return {
    encoding: "o200k_base",
    plugins: summaries.length,
    flat: { tools: flatTools.length, tokens: flatTokens },
    modes: eachMode((mode) => facadeCost(buildFacadeTools(summaries, { mode, execTool: EXEC_FACADE_TOOL }).tools, flatTokens)),
    perPluginFixedTools: fixed.map((tool) => tool.name),
    perPluginFixedTokens: toolsTokens(fixed),
    instructionsTokens: eachMode((mode) => countTokens(serverInstructions(summaries, mode))),
    perPlugin,
  };
}

export function formatTokensReport(report: TokensReport): string {
  // With no downstream tool (an empty or unconfigured fleet) there is nothing to compare against.
  const versus = (x: number) =>
    report.flat.tools === 0 ? "no downstream tools listed, nothing to compare" : x >= 0 ? `${(x * 100).toFixed(1)}% less than flat` : `${(-x * 100).toFixed(1)}% more than flat`;
  const lines = [
    `tools/list tokens (${report.encoding}) for ${report.plugins} plugin(s)`,
    `  flat (every tool listed)   ${String(report.flat.tokens).padStart(7)} tokens  ${report.flat.tools} tools`,
    `  per-plugin facade          ${String(report.modes["per-plugin"].tokens).padStart(7)} tokens  ${report.modes["per-plugin"].tools} tools  (${versus(report.modes["per-plugin"].reduction)})`,
    `  compact facade             ${String(report.modes.compact.tokens).padStart(7)} tokens  ${report.modes.compact.tools} tools  (${versus(report.modes.compact.reduction)})`,
    `server instructions (initialize): ${report.instructionsTokens["per-plugin"]} tokens per-plugin, ${report.instructionsTokens.compact} compact`,
    `per plugin (per-plugin mode also pays ${report.perPluginFixedTokens} tokens once for its fixed tools ${report.perPluginFixedTools.join(", ")}):`,
    ...report.perPlugin.map(
      (p) => `  ${p.prefix.padEnd(24)} ${String(p.tools).padStart(4)} tools  flat ${String(p.flatTokens).padStart(6)}  per-plugin facade ${String(p.perPluginTokens).padStart(4)}${p.error ? `  (${p.error})` : ""}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
