import type { Logger } from "../adapters/types.js";
import type { Tracing } from "../runtime/observer.js";
import { createRedactor } from "../adapters/shared/redact.js";
import { urlCredentials } from "../adapters/shared/env-vars.js";
import { maskedUrlText } from "../url-text.js";

/**
 * OpenTelemetry traces of the gateway's operations: one span per discover, search, call and skill
 * run (`agent_tools.<operation>`), with one child per pipeline step (`agent_tools.step.<name>`:
 * repair, loop_check, resolve_plugin, resolve_tool, authorize, validate, gate, invoke, shape),
 * sent over OTLP/HTTP to the collector the standard variables name.
 *
 * Off unless OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set (and
 * OTEL_SDK_DISABLED is not "true", OTEL_TRACES_EXPORTER not "none"). Off, the SDK is never loaded
 * and the runtime gets no tracing, so no span object is made and no step is wrapped.
 */

export interface GatewayTracing extends Tracing {
  /** Where spans go, for the start-up log line: its credentials masked (maskedUrlText). */
  readonly endpoint: string;
  /** Send what is buffered and stop. */
  shutdown(): Promise<void>;
}

/** Why tracing is off, or undefined when the environment turns it on. */
export function tracingOff(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return "OTEL_SDK_DISABLED=true";
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return "OTEL_TRACES_EXPORTER=none";
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return "no OTLP endpoint set";
  return undefined;
}

export async function startTracing(options: { env: NodeJS.ProcessEnv; instanceId: string; version: string; log: Logger }): Promise<GatewayTracing | undefined> {
  const { env } = options;
  if (tracingOff(env)) return undefined;
  const [{ context, trace, SpanStatusCode }, { TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  // The exporter reads the OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
  const target = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.trim().replace(/\/$/, "")}/v1/traces`;
  // A collector's URL may hold a user and password: the log names the URL masked, and an
  // exporter's error (which may quote the URL it could not reach) has them masked too.
  const endpoint = maskedUrlText(target);
  const credentials = createRedactor(urlCredentials(target));
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || "agent-tools-runtime", "service.version": options.version, "service.instance.id": options.instanceId }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  const tracer = provider.getTracer("agent-tools-runtime", options.version);
  return {
    endpoint,
    start(operation, session) {
      const span = tracer.startSpan(`agent_tools.${operation}`, {
        attributes: { "agent_tools.operation": operation, "agent_tools.session": session.id, ...(session.identity ? { "agent_tools.identity": session.identity.name } : {}) },
      });
      const parent = trace.setSpan(context.active(), span);
      return {
        step(name) {
          const child = tracer.startSpan(`agent_tools.step.${name}`, { attributes: { "agent_tools.step": name } }, parent);
          return (failure) => {
            if (failure) child.setStatus({ code: SpanStatusCode.ERROR, message: failure });
            child.end();
          };
        },
        end(facts) {
          span.setAttributes({ "agent_tools.plugin": facts.plugin, "agent_tools.outcome": facts.outcome, "agent_tools.mutating": facts.mutating, ...(facts.target ? { "agent_tools.target": facts.target } : {}) });
          if (facts.outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: facts.outcome });
          span.end();
        },
      };
    },
    async shutdown() {
      await provider.shutdown().catch((error: unknown) => options.log.warn(credentials.redact(`tracing: could not send the last spans to ${endpoint}: ${error instanceof Error ? error.message : String(error)}`)));
    },
  };
}
