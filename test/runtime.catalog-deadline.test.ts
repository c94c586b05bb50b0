import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

// A module adapter whose listTools() hangs the first time: the listing is bounded by the call
// deadline, answers UPSTREAM_TIMEOUT, is not kept, and the next request lists again.

function hangingOncePlugin(): string {
  const root = mkdtempSync(path.join(tmpdir(), "agent-tools-hang-"));
  const dir = path.join(root, "agent-tools-plugin-sticky");
  mkdirSync(dir);
  writeFileSync(path.join(dir, "plugin.json"), JSON.stringify({ name: "sticky", prefix: "sticky", description: "Lists its tools only on the second try.", adapter: "./adapter.mjs", adapterExport: "create" }));
  writeFileSync(
    path.join(dir, "adapter.mjs"),
    `let calls = 0;
export function create() {
  return {
    async listTools() {
      calls += 1;
      if (calls === 1) return new Promise(() => {});
      return { tools: [{ name: "ping", description: "Answers pong.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] };
    },
    async call(name) { return { content: [{ type: "text", text: name === "ping" ? "pong" : "?" }] }; },
  };
}
`,
  );
  return root;
}

describe("a module adapter whose listTools() hangs", () => {
  let server: Connected;
  before(async () => {
    // 2 s, not less: after the hanging listing, the next listing and call must succeed under the same
    // deadline, and on a loaded machine a few hundred ms is not enough for that.
    server = await connect(hangingOncePlugin(), { AGENT_TOOLS_CALL_TIMEOUT_MS: "2000" });
  });
  after(async () => {
    await server.close();
  });

  it("answers UPSTREAM_TIMEOUT for the listing, then lists and calls on the next request", async () => {
    const first = await callJson(server.client, "agent_tools_sticky_discover", {});
    assert.equal(first.isError, true);
    assert.equal(first.payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(first.payload.error?.message ?? "", /^listing the tools of plugin 'sticky' did not answer within 2000 ms$/, "the deadline's own words, nothing put in front");
    const second = await callJson(server.client, "agent_tools_sticky_discover", {});
    assert.equal(second.isError, false, JSON.stringify(second.payload));
    const called = await callJson(server.client, "agent_tools_sticky_call", { toolName: "ping" });
    assert.equal(called.isError, false, JSON.stringify(called.payload));
    assert.match(JSON.stringify(called.payload.result), /pong/);
  });
});

describe("agent_tools_search while a plugin's listing hangs", () => {
  let server: Connected;
  before(async () => {
    server = await connect(hangingOncePlugin(), { AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
  });
  after(async () => {
    await server.close();
  });

  it("answers without that plugin, naming it as still listing, instead of waiting for the deadline", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "ping" });
    assert.equal(isError, false, JSON.stringify(payload));
    const unavailable = payload.unavailable as Record<string, string> | undefined;
    assert.match(unavailable?.sticky ?? "", /still listing its tools after 3000 ms/);
  });
});
