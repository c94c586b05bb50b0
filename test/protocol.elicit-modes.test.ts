import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { connectStdioV1, ROOT, writePlugin } from "./helpers.js";
import { connectStdioV2, firstText, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * Elicitation modes end to end: a downstream is told exactly the modes the agent's client
 * declared (a bare `elicitation: {}` is form only), and a URL-mode question toward a client that
 * declared only form is refused in words, neither forwarded nor left hanging. Both eras of the
 * agent's client (2025: initialize; 2026-07-28: per request) against both eras of the downstream
 * (the v2 fixture reads capabilities per call; the v1 legacy-asker reads the runtime's
 * connection-wide ones), all real processes over stdio.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-elicit-modes-"));
const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-dn"), {
  name: "dn",
  prefix: "dn",
  description: "A 2026-07-28 downstream.",
  adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], timeoutMs: 60_000 },
});
writePlugin(path.join(pluginsDir, "agent-tools-plugin-ln"), {
  name: "ln",
  prefix: "ln",
  description: "A 2025-era downstream.",
  adapter: { kind: "mcp", command: process.execPath, args: [path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs")], timeoutMs: 60_000 },
});
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir };

const callArgs = (prefix: string, toolName: string, args: Record<string, unknown> = {}) => ({ name: `agent_tools_${prefix}_call`, arguments: { toolName, arguments: args } });
/** The capabilities the downstream saw, from its client_caps answer inside the facade's JSON. */
const declaredDownstream = (result: unknown): Record<string, unknown> | null => {
  const payload = JSON.parse(firstText(result)) as { ok: boolean; result?: Record<string, unknown> | null };
  assert.equal(payload.ok, true, firstText(result));
  return payload.result ?? null;
};

/** The URL-mode questions a client was shown. */
const shown: string[] = [];

const DECLARED = {
  "form only": { declared: { form: {} }, downstream: { form: {} } },
  "bare {} (form only)": { declared: {}, downstream: { form: {} } },
  "url only": { declared: { url: {} }, downstream: { url: {} } },
  "form and url": { declared: { form: {}, url: {} }, downstream: { form: {}, url: {} } },
} as const;

function modernCaller(elicitation: Record<string, unknown>): V2Client {
  const client = v2Client("pin", { elicitation });
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params as { mode?: string; url?: string };
    if (params.mode === "url") shown.push(params.url ?? "");
    return { action: "accept" };
  });
  return client;
}

function legacyCaller(elicitation: Record<string, unknown>): V1Client {
  const client = new V1Client({ name: "modes-legacy", version: "0" }, { capabilities: { elicitation } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string; url?: string };
    if (params.mode === "url") shown.push(params.url ?? "");
    return { action: "accept" };
  });
  return client;
}

type Caller = { call(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
const CALLERS: Record<string, (elicitation: Record<string, unknown>) => Promise<Caller>> = {
  "2026-07-28 caller": async (elicitation) => {
    const { client } = await connectStdioV2(modernCaller(elicitation), env);
    assert.equal(client.getProtocolEra(), "modern");
    return { call: (params) => client.callTool(params, { timeout: 60_000 }), close: () => client.close() };
  },
  "2025 caller": async (elicitation) => {
    const client = legacyCaller(elicitation);
    await connectStdioV1(client, env);
    return { call: (params) => client.callTool(params, undefined, { timeout: 60_000 }), close: () => client.close() };
  },
};

for (const [era, connect] of Object.entries(CALLERS)) {
  describe(`elicitation modes, ${era}`, () => {
    const callers: Partial<Record<keyof typeof DECLARED, Caller>> = {};
    before(async () => {
      for (const name of Object.keys(DECLARED) as (keyof typeof DECLARED)[]) callers[name] = await connect(DECLARED[name].declared);
    });
    after(async () => {
      for (const caller of Object.values(callers)) await caller?.close();
    });

    for (const [name, { downstream }] of Object.entries(DECLARED)) {
      it(`declared ${name}: a 2026-07-28 downstream is told exactly that`, async () => {
        const caller = callers[name as keyof typeof DECLARED];
        assert.ok(caller);
        const seen = declaredDownstream(await caller.call(callArgs("dn", "client_caps")));
        assert.deepEqual(seen?.elicitation, downstream);
      });
    }

    it("a 2025-era downstream reads the runtime's connection-wide capabilities: form and url", async () => {
      const seen = declaredDownstream(await callers["form only"]?.call(callArgs("ln", "client_caps")));
      assert.deepEqual(seen?.elicitation, { form: {}, url: {} });
    });

    for (const prefix of ["dn", "ln"]) {
      for (const name of ["form only", "bare {} (form only)"] as const) {
        it(`${prefix}: a URL-mode question toward a caller that declared ${name} is refused in words, not shown`, async () => {
          const before = shown.length;
          const url = `https://example.test/${prefix}/${Math.random().toString(36).slice(2, 8)}`;
          const result = await callers[name]?.call(callArgs(prefix, "ask_url", { url }));
          assert.equal(shown.length, before, "the caller was not shown the URL request");
          assert.match(firstText(result), /the agent's client declared elicitation only for form mode, so the runtime cannot show its user a url-mode request; this request was refused/);
          assert.ok(!firstText(result).includes("the user chose"), firstText(result));
          // A 2026-07-28 downstream refused before asking: the failed call tells the agent what to do.
          if (prefix === "dn") assert.match((JSON.parse(firstText(result)) as { error?: { hint?: string } }).error?.hint ?? "", /declares URL elicitation \(capabilities\.elicitation\.url\)/);
        });
      }

      it(`${prefix}: a form question toward a caller that declared url only is refused in words that say so`, async () => {
        const result = await callers["url only"]?.call(callArgs(prefix, "ask_user", { question: "Which table?" }));
        const payload = JSON.parse(firstText(result)) as { ok: boolean; error?: { message: string; hint: string } };
        assert.equal(payload.ok, false, firstText(result));
        // Not "did not declare elicitation": this client did, for URL mode.
        assert.doesNotMatch(payload.error?.message ?? "", /did not declare elicitation/);
        assert.match(payload.error?.message ?? "", /the agent's client declared elicitation only for url mode, so the runtime cannot show its user a form-mode request; this request was refused/);
        // The 2026-07-28 downstream refused before asking; the 2025-era one asked, was refused
        // (and told the mode it could ask in), and failed: either way the agent is told what to do.
        assert.match(payload.error?.hint ?? "", /declared elicitation for URL mode only\)\. Tell the user: the tool works from a client that declares form elicitation \(capabilities\.elicitation\.form\)/);
        if (prefix === "ln") assert.match(payload.error?.message ?? "", /; ask in url mode instead/);
      });

      it(`${prefix}: a URL-mode question toward a caller that declared url is forwarded and answered`, async () => {
        for (const name of ["url only", "form and url"] as const) {
          const url = `https://example.test/${prefix}/${name.replace(/\W/g, "")}`;
          const result = await callers[name]?.call(callArgs(prefix, "ask_url", { url }));
          assert.match(firstText(result), /the user chose accept/, `${name}: ${firstText(result)}`);
          assert.ok(shown.includes(url), `${name}: the caller was shown ${url}`);
        }
      });
    }
  });
}
