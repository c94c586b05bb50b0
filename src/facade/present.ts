import type { CallToolResult } from "@modelcontextprotocol/server";
import type { NextStep } from "../runtime/answers.js";
import { MAX_MEDIA_ITEMS, type MediaItem } from "../runtime/binary-content.js";
import type { FacadeMode } from "../runtime/facade-mode.js";
import { COMPACT_CALL_TOOL, COMPACT_RUN_SKILL_TOOL, facadeToolName } from "./tools.js";

/**
 * How the facade shows what the runtime answers. Facade tool names live here, not in the runtime:
 * a neutral next step becomes the call for this facade's mode, and the help protocol names
 * this facade's tools.
 */

/**
 * A next step as the call to send: `{"tool": name, "arguments": {...}}`. Required arguments hold
 * typed placeholders ("<string>", placeholders.ts) for the caller to replace; a call still holding
 * one is refused before anything is sent. A neutral next step never carries `confirm`: whether a
 * write may run is the human's decision, which the answer says is needed. A redirect of the same
 * call (a skill's name sent to `_call`, a tool's to `_run_skill`: pipeline.ts) carries the
 * caller's arguments and the top-level `confirm` it sent (`step.confirm`), as routing.ts does for
 * a wrong facade name: the caller already confirmed that call.
 */
export function presentNext(mode: FacadeMode): (step: NextStep) => { tool: string; arguments: Record<string, unknown> } {
  return (step) => {
    const key = step.skill !== undefined ? "skill" : "toolName";
    const name = step.skill ?? step.toolName ?? "";
    const confirm = step.confirm !== undefined ? { confirm: step.confirm } : {};
    if (mode === "compact") {
      return { tool: key === "skill" ? COMPACT_RUN_SKILL_TOOL : COMPACT_CALL_TOOL, arguments: { plugin: step.plugin, [key]: name, arguments: step.arguments, ...confirm } };
    }
    return { tool: facadeToolName(step.plugin, key === "skill" ? "run_skill" : "call"), arguments: { [key]: name, arguments: step.arguments, ...confirm } };
  };
}

const PER_PLUGIN_PROTOCOL = [
  "Each plugin wraps one service. Its tools are not listed up front: find them first.",
  "0. agent_tools_search({query}) — one ranked answer across every plugin, each hit with the call to make next (replace its <type> placeholders).",
  "1. agent_tools_<prefix>_discover({query}) — a few words of what you need; answers tool and skill names with their parameters (* = required).",
  "2. agent_tools_<prefix>_call({toolName, arguments}) — arguments are checked against the tool's schema; tools that change data also need confirm: true (top level), only when the user asked for the change.",
  "3. agent_tools_<prefix>_run_skill({skill, arguments}) — a server-side recipe that makes several calls in one.",
];

const COMPACT_PROTOCOL = [
  "Each plugin wraps one service. Its tools are not listed up front: find them first.",
  "1. agent_tools_search({query}) — a few words of what you need; answers ranked tools and skills of every plugin, each with the call to make next (replace its <type> placeholders).",
  "2. agent_tools_call({plugin, toolName, arguments}) — arguments are checked against the tool's schema; tools that change data also need confirm: true (top level), only when the user asked for the change.",
  "3. agent_tools_run_skill({plugin, skill, arguments}) — a server-side recipe that makes several calls in one.",
];

const FLAG_WORDING = "tools that change data also need confirm: true (top level), only when the user asked for the change.";
const ASKED_WORDING = "tools that change data are confirmed by your user, who is asked in their client when you call them (plugins set to the confirm flag say so in their errors).";

/**
 * The help's protocol lines; `userConfirms`: the client shows its user the confirmation question.
 * How errors are answered is left to the initialize instructions, which every client already has.
 */
export function protocolFor(mode: FacadeMode, userConfirms = false): string[] {
  const lines = mode === "compact" ? COMPACT_PROTOCOL : PER_PLUGIN_PROTOCOL;
  return userConfirms ? lines.map((line) => line.replace(FLAG_WORDING, ASKED_WORDING)) : lines;
}

/**
 * An answer as a tool result: one line of JSON, once. Clients show the model the text block
 * (Claude Code, Codex and pi read `content`); the facade declares no outputSchema, so
 * `structuredContent` is optional, and sending it too doubled every answer on the wire and, in
 * clients that pass both on, in the model's context. Indentation cost about half again as many
 * tokens, so the text is one line.
 */
export function toToolResult(outcome: { isError: boolean; payload: object; media?: readonly MediaItem[] }): CallToolResult {
  const media = outcome.media;
  if (!media?.length) return { content: [{ type: "text", text: JSON.stringify(outcome.payload) }], isError: outcome.isError };
  // A result's images and audio follow the text as MCP content (clients show them); the JSON holds
  // their placeholders (binary-content.ts), and says where they went. At most MAX_MEDIA_ITEMS are
  // passed on, each media type cut short there, so the sentence stays short.
  const atCap = media.length >= MAX_MEDIA_ITEMS ? `; an answer passes on at most ${MAX_MEDIA_ITEMS}: the placeholders in \`result\` say which were not` : "";
  const attached = `${media.map((m) => `${m.type} (${m.mimeType})`).join(", ")} of the result follow${media.length === 1 ? "s" : ""} this text as MCP content, in order${atCap}`;
  return { content: [{ type: "text", text: JSON.stringify({ ...outcome.payload, attached }) }, ...media.map((m) => ({ ...m }))], isError: outcome.isError };
}
