import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "../adapters/types.js";
import type { AgentToolsConfig } from "../config/config.js";
import type { Identity } from "../runtime/access.js";
import type { CallObserver } from "../runtime/observer.js";
import { createSharedState } from "../state/index.js";
import { heartbeatEveryMs, type SharedState } from "../state/types.js";
import { createAuditObserver } from "../runtime/audit.js";
import { createAuthenticator, type Authenticator } from "./identities.js";
import { createGatewayMetrics, type GatewayMetrics } from "./metrics.js";
import { checkRate, type RateDecision } from "./rate-limit.js";
import { startTracing, type GatewayTracing } from "./tracing.js";
import { shareStateKey, watchStateKey, type StateKeyWatch } from "./state-key-watch.js";
import { packageJson } from "../paths.js";
import { DRAINING_RETRY_AFTER, opsAccessOf } from "./ops-paths.js";
import { checkHost, checkOrigin, requestHost, type Rejection } from "../transports/http/guards.js";
import { boundHostNames, HttpOptionsError, type HttpOptions } from "../transports/http/options.js";
import { listenProblem } from "../transports/http/listen-problem.js";

/**
 * What makes one HTTP runtime an instance of a team gateway: shared state, identities, the audit
 * observer, metrics, per-identity rate limits, health and readiness, and draining on SIGTERM.
 * The HTTP transport asks it who is calling and whether to admit the request; the runtime gets
 * its state and observers. With no `team` block and no Redis it costs a memory state, a metrics
 * registry and a JSONL audit file — the single-user server as before, now observable.
 */


export interface Gateway {
  readonly state: SharedState;
  readonly metrics: GatewayMetrics;
  readonly observers: CallObserver[];
  /** OpenTelemetry traces of every operation, when the OTEL_EXPORTER_OTLP_* variables name a collector. */
  readonly tracing: GatewayTracing | undefined;
  readonly auth: Authenticator;
  /** A team gateway (a `team` block or shared state in Redis), rather than a one-user server. */
  readonly team: boolean;
  /** True once the drain refuses new sessions and workspaces (503); calls in flight finish. */
  readonly draining: boolean;
  /** Serve an operations path (metrics, health, readiness, resource metadata); false for any other path. */
  serveOps(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>;
  /** Why this request may not read /metrics (no or a wrong token, an identity limited to some plugins); undefined when it may. */
  metricsRefusal(req: IncomingMessage): Promise<Rejection | undefined>;
  admit(identity: Identity | undefined): Promise<RateDecision>;
  /**
   * Begin draining: /readyz answers 503 at once, so the balancer takes this instance out of its
   * rotation; new sessions and workspaces are still taken for `delayMs`, the time the balancer
   * needs to notice (its checks' interval × fall), since until then it keeps sending new clients
   * here; then they are refused. Resolves once they are.
   */
  startDrain(delayMs: number): Promise<void>;
  /** When /readyz was last asked (ms since the epoch): a balancer checks it; undefined when nothing has. */
  readonly readinessProbedAt: number | undefined;
  /** Where /metrics is served when it has its own port. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

export interface GatewayOptions {
  env: NodeJS.ProcessEnv;
  config: AgentToolsConfig | undefined;
  log: Logger;
  /** AGENT_TOOLS_HTTP_TOKEN, the one-user token (an identity that may do everything). */
  singleToken: string | undefined;
  /** The HTTP port's extra Host and Origin names, which the metrics port of its own accepts too. */
  http?: Pick<HttpOptions, "allowedHosts" | "allowedOrigins"> & Partial<Pick<HttpOptions, "port" | "host">>;
  /** Reuse a state (tests); default from AGENT_TOOLS_REDIS_URL / team settings. */
  state?: SharedState;
}

/** Whether listeners on these two hosts would contend for one port: the same host, or a wildcard (all addresses) on either side. */
function sharesAddress(a: string, b: string | undefined): boolean {
  const wildcard = (host: string): boolean => boundHostNames(host).length === 0;
  return b === undefined || a.toLowerCase() === b.toLowerCase() || wildcard(a) || wildcard(b);
}

function send(res: ServerResponse, status: number, body: string, contentType = "application/json", headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-store", ...headers });
  res.end(body);
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const team = options.config?.team;
  const state = options.state ?? (await createSharedState({ env: options.env, log: options.log, ...(team ? { settings: team } : {}) }));
  // Without AGENT_TOOLS_STATE_KEY a fleet on Redis shares a key it keeps in Redis, and keeps
  // checking it is still there, at the heartbeat's pace (a GET), so a Redis that restarted empty
  // does not leave the fleet split between two keys (state-key-watch.ts).
  let keyWatch: StateKeyWatch | undefined;
  if (state.backend === "redis" && !options.env.AGENT_TOOLS_STATE_KEY?.trim()) {
    await shareStateKey(state, options.env);
    keyWatch = watchStateKey(state, options.log, heartbeatEveryMs(team?.heartbeatTtlMs));
  }
  const metrics = createGatewayMetrics({ instanceId: state.instanceId });
  const observers: CallObserver[] = [metrics.observer];
  if (state.audit) {
    observers.push(createAuditObserver({ audit: state.audit, instanceId: state.instanceId, log: options.log, counted: (outcome) => metrics.auditEntries.inc({ outcome }) }));
  }
  const tracing = await startTracing({ env: options.env, instanceId: state.instanceId, version: packageJson().version, log: options.log });
  if (tracing) options.log.info(`tracing: spans of every operation and pipeline step go to ${tracing.endpoint}`);
  const resourcePath = "/.well-known/oauth-protected-resource";
  // The metadata is served whether or not team.resource is set (then for the request's Host), so a 401 always names it.
  const metadataFor = (host: string | undefined): string | undefined => (team?.resource ? `${new URL(team.resource).origin}${resourcePath}` : host ? `http://${host}${resourcePath}` : undefined);
  const auth = await createAuthenticator({ team, singleToken: options.singleToken, resourceMetadataUrl: metadataFor, log: options.log });
  /** /readyz answers 503 (the drain began). */
  let leaving = false;
  /** New sessions and workspaces are refused (the drain's delay is over). */
  let draining = false;
  let readinessProbedAt: number | undefined;

  // /metrics on the HTTP port unless `team.metrics` is false (off) or gives a port of its own
  // (scrapers often live on another network than clients; the numbers name plugins and identities).
  const metricsOnMain = team?.metrics === undefined || team.metrics === true;

  async function metricsRefusal(req: IncomingMessage): Promise<Rejection | undefined> {
    const outcome = await auth.authenticate(req.headers.authorization, requestHost(req));
    if (!outcome.ok) return outcome;
    if (outcome.identity && outcome.identity.plugins !== "*") {
      return { status: 403, message: `identity '${outcome.identity.name}' may not read /metrics: its figures name every plugin and identity; scrape with a token whose identity may use all plugins ("*")` };
    }
    return undefined;
  }

  async function serveOps(req: IncomingMessage, res: ServerResponse, pathname: string, onMetricsPort = false): Promise<boolean> {
    if (!opsAccessOf(pathname)) return false;
    if (pathname === "/metrics" && !onMetricsPort && !metricsOnMain) {
      send(res, 404, JSON.stringify({ error: `nothing at /metrics on this port: the config's team.metrics ${team?.metrics === false ? "turns metrics off" : "serves them on a port of their own"}` }));
      return true;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, JSON.stringify({ error: `${pathname} answers GET only` }), "application/json", { Allow: "GET, HEAD" });
      return true;
    }
    switch (pathname) {
      case "/metrics": {
        send(res, 200, await metrics.text(), metrics.registry.contentType);
        return true;
      }
      case "/healthz": {
        // Liveness: the process answers. Whether it should get traffic is /readyz.
        // Token-free, so status only (the instance id is on every answer's Agent-Tools-Instance header anyway).
        send(res, 200, JSON.stringify({ status: "ok", instance: state.instanceId }));
        return true;
      }
      case "/readyz": {
        // Readiness is this instance's alone: draining. Not the shared Redis, which every instance
        // shares: its outage would fail every instance's check at once, and the balancer would
        // answer each client with its own HTML 503, where an instance answers a request that
        // needs the state with UPSTREAM_ERROR (retry) and serves the rest. Said in the body.
        readinessProbedAt = Date.now();
        const sharedState = state.backend === "redis" ? { sharedState: (await state.ping()) ? "reachable" : "unreachable" } : {};
        send(res, leaving ? 503 : 200, JSON.stringify({ status: leaving ? "draining" : "ready", instance: state.instanceId, ...sharedState }), "application/json", leaving ? { "Retry-After": DRAINING_RETRY_AFTER } : {});
        return true;
      }
      default: {
        // RFC 9728, as the MCP authorization spec asks: where clients get tokens for this resource.
        // The transport checked the host (Host, or an absolute-form target's) before this: a foreign name never gets here.
        const host = requestHost(req) ?? "localhost";
        const resource = team?.resource ?? `http://${host}/mcp`;
        const body: Record<string, unknown> = { resource, bearer_methods_supported: ["header"], resource_name: "agent-tools-runtime gateway" };
        if (team?.jwt) {
          body.authorization_servers = [team.jwt.issuer];
          body.scopes_supported = [team.jwt.writeScope ?? "agent-tools:write"];
        }
        send(res, 200, JSON.stringify(body));
        return true;
      }
    }
  }

  // /metrics on a port of its own when asked (and then not on the HTTP port).
  let metricsServer: Server | undefined;
  let metricsUrl: string | undefined;
  if (team?.metrics && typeof team.metrics === "object") {
    const host = team.metrics.host ?? "127.0.0.1";
    // The same guards as the HTTP port: Host and Origin stop a DNS-rebinding page (the port is
    // loopback by default, which any page's name can resolve to), and /metrics asks the token
    // when one is configured (any local process or user can reach a loopback port).
    const guard = {
      allowedHosts: [...new Set([...(options.http?.allowedHosts ?? []), ...boundHostNames(host)])],
      allowedOrigins: options.http?.allowedOrigins ?? [],
    };
    const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
      const access = opsAccessOf(pathname);
      const refused = checkHost(req, guard, { hostOptional: access === "probe" }) ?? checkOrigin(req, guard) ?? (access === "metrics" ? await metricsRefusal(req) : undefined);
      if (refused) send(res, refused.status, JSON.stringify({ error: refused.message }), "application/json", refused.headers);
      else if (!(await serveOps(req, res, pathname, true))) send(res, 404, JSON.stringify({ error: `nothing at ${pathname}; try /metrics` }));
    };
    metricsServer = createServer((req, res) => {
      answer(req, res).catch((error: unknown) => {
        options.log.warn(`metrics port: ${(error as Error).message}`);
        if (!res.headersSent) send(res, 500, JSON.stringify({ error: "the metrics port failed to answer; see the server log" }));
        else res.destroy();
      });
    });
    const port = team.metrics.port;
    // What the start opened so far (the Redis connections, its heartbeat) goes before an error is
    // said: a heartbeat left behind would make the restart wait for it to expire.
    const abandonStart = async (): Promise<void> => {
      keyWatch?.stop();
      await tracing?.shutdown();
      await state.close();
    };
    // The HTTP port itself, opened right after: the metrics would take it, and the HTTP port's own
    // error would blame "another agent-tools-mcp-http".
    if (port !== 0 && port === options.http?.port && sharesAddress(host, options.http.host)) {
      await abandonStart();
      throw new HttpOptionsError(`team.metrics.port ${port} is the HTTP port too (AGENT_TOOLS_HTTP_PORT or http.port); give the metrics a port of their own, or set team.metrics to true to serve /metrics on the HTTP port`);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        metricsServer!.once("error", reject);
        metricsServer!.listen(port, host, () => resolve());
      });
    } catch (error) {
      await abandonStart();
      const problem = listenProblem(error, { port, host, portSetting: "the config's team.metrics.port", hostSetting: "the config's team.metrics.host" });
      if (!problem) throw error;
      throw new HttpOptionsError(`the metrics port of its own (team.metrics): ${problem.message}`);
    }
    const address = metricsServer.address();
    metricsUrl = `http://${host}:${typeof address === "object" && address ? address.port : 0}/metrics`;
  }

  return {
    state,
    metrics,
    observers,
    tracing,
    auth,
    team: Boolean(team) || state.backend === "redis",
    get draining() {
      return draining;
    },
    serveOps,
    metricsRefusal,
    async admit(identity) {
      const decision = await checkRate(state.counters, identity);
      if (!decision.ok && identity) metrics.rateLimited.inc({ identity: identity.name });
      return decision;
    },
    get readinessProbedAt() {
      return readinessProbedAt;
    },
    async startDrain(delayMs) {
      leaving = true;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      draining = true;
    },
    metricsUrl,
    async close() {
      keyWatch?.stop();
      if (metricsServer) await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
      await tracing?.shutdown();
      await state.close();
    },
  };
}
