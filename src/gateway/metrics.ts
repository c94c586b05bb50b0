import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { trackedChildren } from "../adapters/mcp/child-registry.js";
import { jobCounts } from "../runtime/jobs.js";
import type { CallObserver } from "../runtime/observer.js";

/**
 * Prometheus metrics (prom-client, text format at /metrics). One registry per gateway, so two
 * gateways in one test process do not mix their counts. Labels stay low-cardinality: plugin,
 * operation kind and outcome (an error code or "ok"), never identities' arguments.
 */

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly observer: CallObserver;
  readonly rateLimited: Counter<"identity">;
  readonly auditEntries: Counter<"outcome">;
  readonly httpRequests: Counter<"status">;
  /** Gauges read when scraped; `isPlugin` says which plugin names are the server's own (labelled as they are). */
  setSources(sources: { openSessions: () => number; catalog: () => { hits: number; misses: number }; isPlugin?: (name: string) => boolean }): void;
  text(): Promise<string>;
}

/**
 * How many names that are not the server's plugins get a label of their own before the rest share
 * OTHER_PLUGIN. The plugin a call names is the client's text: a compact-mode `agent_tools_call` with
 * a new invented plugin each time made a counter and a whole histogram a name, so any identity
 * could grow the scrape and the process without end (24 MB of /metrics after 4,000 calls). A few
 * are kept apart so that a misconfigured client's one wrong name still shows as itself.
 */
const OTHER_NAMES_KEPT = 16;
export const OTHER_PLUGIN = "(other)";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createGatewayMetrics(options: { instanceId: string; defaultMetrics?: boolean }): GatewayMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ instance_id: options.instanceId });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "agent_tools_" });
  const calls = new Counter({ name: "agent_tools_calls_total", help: "Runtime operations by plugin, kind (call, run_skill, discover, search) and outcome (ok or the error code).", labelNames: ["plugin", "kind", "outcome"], registers: [registry] });
  const writes = new Counter({ name: "agent_tools_mutating_calls_total", help: "Calls that change data (or tried to), by plugin and outcome.", labelNames: ["plugin", "outcome"], registers: [registry] });
  const latency = new Histogram({ name: "agent_tools_call_duration_seconds", help: "Duration of runtime operations.", labelNames: ["plugin", "kind"], buckets: LATENCY_BUCKETS, registers: [registry] });
  const rateLimited = new Counter({ name: "agent_tools_rate_limited_total", help: "Requests refused with 429 by identity.", labelNames: ["identity"], registers: [registry] });
  const auditEntries = new Counter({ name: "agent_tools_audit_entries_total", help: "Audit log appends by outcome (written, failed).", labelNames: ["outcome"], registers: [registry] });
  const httpRequests = new Counter({ name: "agent_tools_http_requests_total", help: "HTTP requests answered, by status.", labelNames: ["status"], registers: [registry] });
  let sources: Parameters<GatewayMetrics["setSources"]>[0] | undefined;
  const otherNames = new Set<string>();
  /** The plugin label of an event: the server's own plugins (and "*", a search of all) as they are, a few other names, then OTHER_PLUGIN. */
  const pluginLabel = (name: string): string => {
    if (name === "*" || sources?.isPlugin?.(name) !== false || otherNames.has(name)) return name;
    if (otherNames.size >= OTHER_NAMES_KEPT) return OTHER_PLUGIN;
    otherNames.add(name);
    return name;
  };
  new Gauge({ name: "agent_tools_sessions_open", help: "Open legacy (Mcp-Session-Id) sessions on this instance.", registers: [registry], collect() {
    this.set(sources?.openSessions() ?? 0);
  } });
  new Gauge({ name: "agent_tools_downstream_processes", help: "Downstream server processes this instance runs (stdio MCP servers).", registers: [registry], collect() {
    this.set(trackedChildren().length);
  } });
  new Gauge({ name: "agent_tools_catalog_cache_hits", help: "Tool listings answered from the catalog cache since start.", registers: [registry], collect() {
    this.set(sources?.catalog().hits ?? 0);
  } });
  new Gauge({ name: "agent_tools_catalog_cache_misses", help: "Tool listings that asked the downstream since start.", registers: [registry], collect() {
    this.set(sources?.catalog().misses ?? 0);
  } });
  new Gauge({ name: "agent_tools_jobs", help: "Background jobs this instance started, by state (running now; finished since start).", labelNames: ["state"], registers: [registry], collect() {
    for (const [state, count] of Object.entries(jobCounts())) this.set({ state }, count);
  } });

  return {
    registry,
    rateLimited,
    auditEntries,
    httpRequests,
    observer(event) {
      const plugin = pluginLabel(event.plugin);
      calls.inc({ plugin, kind: event.operation, outcome: event.outcome });
      latency.observe({ plugin, kind: event.operation }, event.durationMs / 1000);
      if (event.mutating) writes.inc({ plugin, outcome: event.outcome });
    },
    setSources(next) {
      sources = next;
    },
    text: () => registry.metrics(),
  };
}
