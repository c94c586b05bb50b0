import type { FacadeMode } from "../runtime/facade-mode.js";
import type { PluginSummary } from "../runtime/runtime.js";

/**
 * The `instructions` sent at initialize; several clients put them in the system prompt. Agents
 * with large native toolsets were seen never reaching this server's tools, so the text names each
 * connected service on a line of its own and says to search before guessing. Kept short: one
 * line per service, cut at a fixed count.
 */

export const SERVER_INSTRUCTIONS =
  "agent-tools-runtime keeps many services behind a few tools. Search before guessing: agent_tools_search({query}) finds the right tool in any of them and gives the exact call to make next. Errors carry a code and a hint: follow the hint rather than retrying the same call.";

const MAX_SERVICE_LINES = 20;
const LINE_CHARS = 100;

function short(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS - 1).trimEnd()}…` : flat;
}

export function serverInstructions(plugins: readonly PluginSummary[], mode: FacadeMode): string {
  const how = mode === "compact" ? "agent_tools_call" : "agent_tools_<prefix>_call";
  const lines = plugins.slice(0, MAX_SERVICE_LINES).map((p) => `- ${p.prefix}: ${short(p.description || p.name)}${p.configured ? "" : " (not configured)"}`);
  if (plugins.length > MAX_SERVICE_LINES) lines.push(`- … and ${plugins.length - MAX_SERVICE_LINES} more (agent_tools_help lists them all)`);
  return [SERVER_INSTRUCTIONS, `Connected services (call through ${how}):`, ...lines].join("\n");
}
