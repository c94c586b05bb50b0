import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { tracingOff } from "../src/gateway/tracing.js";
import { callJson } from "./helpers.js";
import { httpClient, startHttp } from "./http-helpers.js";

/**
 * OpenTelemetry traces, received by a real OTLP/HTTP endpoint on loopback (a small collector that
 * keeps what the SDK's exporter posts to /v1/traces): one span per operation with its outcome,
 * one child per pipeline step; nothing at all without the OTEL_EXPORTER_OTLP_* variables.
 */

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: string | number };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttribute[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

const attribute = (attributes: OtlpAttribute[] | undefined, key: string): unknown => {
  const value = attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.boolValue ?? value?.intValue;
};

describe("team gateway: OpenTelemetry traces", () => {
  let collector: Server;
  let endpoint: string;
  const exports: OtlpExport[] = [];
  const contentTypes: string[] = [];

  before(async () => {
    collector = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        if (req.url === "/v1/traces") {
          contentTypes.push(String(req.headers["content-type"]));
          exports.push(JSON.parse(body) as OtlpExport);
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  });

  it("off unless an OTLP endpoint is set, and off when the standard switches say so", () => {
    assert.equal(tracingOff({}), "no OTLP endpoint set");
    assert.equal(tracingOff({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), undefined);
    assert.equal(tracingOff({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }), undefined);
    assert.equal(tracingOff({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: "true" }), "OTEL_SDK_DISABLED=true");
    assert.equal(tracingOff({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: "none" }), "OTEL_TRACES_EXPORTER=none");
  });

  it("a span per operation with its outcome, and a child per pipeline step, reach the collector", async () => {
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_INSTANCE_ID: "gw-t", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "team-gateway-test" });
    const { client } = await httpClient(server.url);
    const written = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "t", body: "b" }, confirm: true });
    assert.equal(written.payload.ok, true, JSON.stringify(written.payload));
    const refused = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "t", body: "b" } });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    await callJson(client, "agent_tools_search", { query: "write a note" });
    await client.close();
    assert.match(server.stderr(), new RegExp(`tracing: spans of every operation and pipeline step go to ${endpoint}/v1/traces`));
    // A clean stop sends what the batch still holds.
    await server.stop();

    assert.ok(exports.length > 0, "the exporter posted to /v1/traces");
    assert.ok(contentTypes.every((type) => type.startsWith("application/json")), contentTypes.join());
    const resource = exports[0]!.resourceSpans?.[0]?.resource?.attributes;
    assert.equal(attribute(resource, "service.name"), "team-gateway-test");
    assert.equal(attribute(resource, "service.instance.id"), "gw-t");
    const spans = exports.flatMap((e) => (e.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? [])));
    const calls = spans.filter((s) => s.name === "agent_tools.call");
    assert.equal(calls.length, 2, spans.map((s) => s.name).join());
    const ok = calls.find((s) => attribute(s.attributes, "agent_tools.outcome") === "ok")!;
    assert.equal(attribute(ok.attributes, "agent_tools.plugin"), "notes");
    assert.equal(attribute(ok.attributes, "agent_tools.target"), "create_note");
    assert.equal(attribute(ok.attributes, "agent_tools.mutating"), true);
    const stepsOf = (parent: OtlpSpan): OtlpSpan[] => spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
    assert.deepEqual(
      stepsOf(ok).map((s) => s.name.replace("agent_tools.step.", "")).sort(),
      ["authorize", "gate", "invoke", "loop_check", "repair", "resolve_plugin", "resolve_tool", "shape", "validate"],
    );
    assert.ok(stepsOf(ok).every((s) => (s.status?.code ?? 0) !== 2), "no step of the write failed");

    // The refused write: the operation and the step that refused it carry the error; no step ran after it.
    const failed = calls.find((s) => attribute(s.attributes, "agent_tools.outcome") === "CONFIRM_REQUIRED")!;
    assert.equal(failed.status?.code, 2);
    const failedSteps = stepsOf(failed);
    assert.equal(failedSteps.find((s) => s.name === "agent_tools.step.gate")?.status?.message, "CONFIRM_REQUIRED");
    assert.ok(!failedSteps.some((s) => s.name === "agent_tools.step.invoke"), "nothing was invoked");

    const search = spans.find((s) => s.name === "agent_tools.search");
    assert.equal(attribute(search?.attributes, "agent_tools.outcome"), "ok");
  });

  it("an endpoint's user and password are masked in the log; spans still reach the collector", async () => {
    const password = "OTELPASS_s3cret_1111";
    const withCredentials = endpoint.replace("http://", `http://otuser:${password}@`);
    const before = exports.length;
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_LOG: "debug", OTEL_EXPORTER_OTLP_ENDPOINT: withCredentials });
    const { client } = await httpClient(server.url);
    await callJson(client, "agent_tools_search", { query: "write a note" });
    await client.close();
    await server.stop();
    assert.ok(server.stderr().includes(`tracing: spans of every operation and pipeline step go to ${endpoint.replace("http://", "http://***@")}/v1/traces`), server.stderr());
    assert.ok(!server.stderr().includes(password), "the password is not logged");
    assert.ok(exports.length > before, "the exporter still posted to /v1/traces");
  });
});
