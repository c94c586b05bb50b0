import type { FacadeMode } from "../runtime/facade-mode.js";
import type { PluginSummary } from "../runtime/runtime.js";

/**
 * The `instructions` sent at initialize; several clients put them in the system prompt. Agents
 * with large native toolsets were seen never reaching this server's tools, so the text names each
 * configured service on a line of its own and says to search before guessing. Plugins that are
 * not configured get no line each: tools/list hides their tools and a call answers NOT_CONFIGURED,
 * so describing them only cost tokens in every prompt; one line names them and points to
 * agent_tools_help, whose status says what each needs. Kept short: lines and names cut at a count.
 */

export const SERVER_INSTRUCTIONS =
  "agent-tools-runtime keeps many services behind a few tools. Search before guessing: agent_tools_search({query}) finds the right tool and the next call (replace its <type> placeholders). Errors carry a code and a hint: follow the hint rather than retrying the same call.";

const MAX_SERVICE_LINES = 20;
const MAX_IDLE_NAMES = 20;
const LINE_CHARS = 100;

function short(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS - 1).trimEnd()}…` : flat;
}

/** "a, b and 3 more": the first `max` items, then how many were left out. */
function namesUpTo(names: readonly string[], max: number): string {
  const shown = names.slice(0, max).join(", ");
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/**
 * The one builder of the instructions, for stdio and HTTP alike; `plugins` are what the caller
 * may see (a team identity's view passes only its own plugins).
 */
export function serverInstructions(plugins: readonly PluginSummary[], mode: FacadeMode): string {
  const how = mode === "compact" ? "agent_tools_call" : "agent_tools_<prefix>_call";
  const configured = plugins.filter((p) => p.configured);
  const idle = plugins.filter((p) => !p.configured).map((p) => p.prefix);
  const parts = [SERVER_INSTRUCTIONS];
  if (configured.length > 0) {
    parts.push(`Connected services (call through ${how}):`);
    for (const p of configured.slice(0, MAX_SERVICE_LINES)) parts.push(`- ${p.prefix}: ${short(p.description || p.name)}`);
    if (configured.length > MAX_SERVICE_LINES) parts.push(`- … and ${configured.length - MAX_SERVICE_LINES} more (agent_tools_help lists them all)`);
  }
  if (idle.length > 0) parts.push(`Not configured (agent_tools_help says what each needs): ${namesUpTo(idle, MAX_IDLE_NAMES)}.`);
  return parts.join("\n");
}
