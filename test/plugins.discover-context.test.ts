import assert from "node:assert/strict";
import type { DiscoverAnswer } from "../src/runtime/answers.js";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { ManifestError, parseManifest } from "../src/plugins/manifest.js";
import { describeMissing, missingRequirements } from "../src/plugins/requirements.js";
import { createRuntime } from "../src/runtime/runtime.js";

/**
 * Two small general manifest features the n8n plugin needed: `discoverContext` (a skill run once,
 * its result attached to every discover answer) and `requires.env` entries "A|B" (either will do).
 */

const root = mkdtempSync(path.join(tmpdir(), "discover-context-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A plugin whose `whoami` skill counts its runs in a file and fails while `fail` exists. */
function contextPlugin(name: string, discoverContext: unknown): string {
  const dir = path.join(root, `agent-tools-plugin-${name}`);
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  writeFileSync(
    path.join(dir, "plugin.json"),
    JSON.stringify({ name, version: "1.0.0", description: "context test", extensions: { "dev.agent-tools-runtime": { prefix: name, adapter: "./adapter.mjs", discoverContext } } }),
  );
  writeFileSync(path.join(dir, "adapter.mjs"), "export default { listTools: async () => ({ tools: [{ name: 'noop', inputSchema: { type: 'object' } }] }), call: async () => ({}) };\n");
  writeFileSync(
    path.join(dir, "skills", "whoami.mjs"),
    [
      "import { existsSync, readFileSync, writeFileSync } from 'node:fs';",
      "import path from 'node:path';",
      "import { fileURLToPath } from 'node:url';",
      "const here = path.dirname(fileURLToPath(import.meta.url));",
      "export const meta = { description: 'who the caller is' };",
      "export async function run(_adapter, args) {",
      "  const counter = path.join(here, '..', 'runs');",
      "  const runs = (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0) + 1;",
      "  writeFileSync(counter, String(runs));",
      "  if (existsSync(path.join(here, '..', 'fail'))) throw Object.assign(new Error('directory is down'), { code: 'UPSTREAM_ERROR' });",
      "  return { user: 'ada', team: args.team ?? null };",
      "}",
    ].join("\n"),
  );
  return dir;
}

describe("manifest: discoverContext and either-of variables", () => {
  const file = "/p/agent-tools-plugin-x/plugin.json";
  it("parses discoverContext with default arguments and refuses a malformed one", () => {
    const m = parseManifest(file, { name: "x", prefix: "x", adapter: "./a.mjs", discoverContext: { skill: "whoami" } });
    assert.deepEqual(m.discoverContext, { skill: "whoami", arguments: {} });
    assert.throws(() => parseManifest(file, { name: "x", prefix: "x", adapter: "./a.mjs", discoverContext: { tool: "whoami" } }), (e: unknown) => e instanceof ManifestError && /discoverContext/.test(e.message));
  });

  it("an 'A|B' requirement is met by either variable and described as 'A or B'", () => {
    const requires = { env: ["N8N_MCP_URL|N8N_INSTANCE_URL", "TOKEN"], bins: [] };
    assert.deepEqual(missingRequirements(requires, { N8N_INSTANCE_URL: "http://x", TOKEN: "t" }).env, []);
    assert.deepEqual(missingRequirements(requires, { N8N_MCP_URL: "http://x", TOKEN: "t" }).env, []);
    const missing = missingRequirements(requires, {});
    assert.deepEqual(missing.env, ["N8N_MCP_URL|N8N_INSTANCE_URL", "TOKEN"]);
    assert.equal(describeMissing(missing), "set N8N_MCP_URL or N8N_INSTANCE_URL, TOKEN");
  });
});

describe("runtime: a plugin-declared discover context", () => {
  it("runs the skill once with its arguments, reports a failure beside the answer and retries it", async () => {
    const dir = contextPlugin("ctx", { skill: "whoami", arguments: { team: "ops" } });
    writeFileSync(path.join(dir, "fail"), "");
    const runtime = await createRuntime({ pluginDirs: [dir], log: silentLogger, env: {} });
    const session = runtime.createSession();
    try {
      const failed = await runtime.discover(session, "ctx", {});
      assert.equal(failed.isError, false, "a failing context does not fail discover");
      assert.match(String((failed.payload as DiscoverAnswer).contextError), /directory is down/);
      assert.equal((failed.payload as DiscoverAnswer).context, undefined);
      rmSync(path.join(dir, "fail"));
      const first = await runtime.discover(session, "ctx", {});
      assert.deepEqual((first.payload as DiscoverAnswer).context, { user: "ada", team: "ops" });
      const second = await runtime.discover(session, "ctx", { query: "noop" });
      assert.deepEqual((second.payload as DiscoverAnswer).context, { user: "ada", team: "ops" });
      const other = await runtime.discover(runtime.createSession(), "ctx", {});
      assert.deepEqual((other.payload as DiscoverAnswer).context, { user: "ada", team: "ops" }, "kept across sessions");
      assert.equal((await import("node:fs")).readFileSync(path.join(dir, "runs"), "utf8"), "2", "one failed run, one good run, then cached");
    } finally {
      await runtime.close();
    }
  });

  it("a context naming a skill the plugin lacks is reported as contextError", async () => {
    const dir = contextPlugin("ctxmissing", { skill: "nobody" });
    const runtime = await createRuntime({ pluginDirs: [dir], log: silentLogger, env: {} });
    try {
      const answer = await runtime.discover(runtime.createSession(), "ctxmissing", {});
      assert.equal(answer.isError, false);
      assert.match(String((answer.payload as DiscoverAnswer).contextError), /discoverContext names skill 'nobody'/);
    } finally {
      await runtime.close();
    }
  });
});
