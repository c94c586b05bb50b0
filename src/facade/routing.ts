import type { Repair } from "../runtime/repair.js";
import { closestNames, similarity } from "../runtime/similarity.js";
import type { FacadeOperation, FacadeRoute } from "./tools.js";

/**
 * Route a facade tool name that does not exist: by name similarity ≥ 0.6, or by the shape of the
 * arguments (`toolName` → a _call, `skill` → a _run_skill, `query` → a _discover) when the plugin
 * can be told from the name or only one plugin fits.
 */

export const ROUTING_SIMILARITY = 0.6;

function operationFromShape(args: unknown): FacadeOperation | undefined {
  if (!args || typeof args !== "object" || Array.isArray(args)) return undefined;
  const a = args as Record<string, unknown>;
  const inner = a.arguments && typeof a.arguments === "object" ? (a.arguments as Record<string, unknown>) : {};
  if (typeof a.toolName === "string" || typeof inner.toolName === "string") return "call";
  if (typeof a.skill === "string" || typeof inner.skill === "string") return "run_skill";
  if (typeof a.query === "string") return "discover";
  return undefined;
}

export type RoutingOutcome = { route: FacadeRoute; name: string; repair: Repair } | { suggestions: string[] };

export function routeUnknownTool(sent: string, args: unknown, routes: ReadonlyMap<string, FacadeRoute>): RoutingOutcome {
  const shape = operationFromShape(args);
  // A `query` fits a _discover or, across plugins, agent_tools_search (the only one in compact mode).
  const fits = (operation: FacadeOperation | undefined) => !shape || operation === shape || (shape === "discover" && operation === "search");
  const names = [...routes.keys()].filter((n) => fits(routes.get(n)?.operation));
  const scored = names.map((name) => ({ name, score: similarity(sent, name) })).sort((a, b) => b.score - a.score);
  let chosen = scored[0] && scored[0].score >= ROUTING_SIMILARITY ? scored[0].name : undefined;
  let why = chosen ? "by name similarity" : "";
  if (!chosen && shape) {
    const lowered = sent.toLowerCase();
    const byPrefix = names.filter((n) => {
      const prefix = routes.get(n)?.prefix;
      return prefix !== undefined && new RegExp(`(^|[^a-z0-9])${prefix.replace(/[-]/g, "\\-")}([^a-z0-9]|$)`).test(lowered);
    });
    if (byPrefix.length === 1) chosen = byPrefix[0];
    else if (names.length === 1) chosen = names[0];
    if (chosen) why = "by the shape of its arguments";
  }
  const route = chosen ? routes.get(chosen) : undefined;
  if (chosen && route) {
    return { route, name: chosen, repair: { kind: "routed-facade-tool", message: `unknown tool '${sent}' was routed to '${chosen}' ${why}` } };
  }
  return { suggestions: closestNames(sent, routes.keys(), 0.3, 5) };
}
