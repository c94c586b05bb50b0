import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../src/config/config.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { serverEntry } from "./fixtures/mcp/support.js";
import { linkFacade, type LinkedFacade } from "./memory-kit.js";

/**
 * Routing never changes the target of a write. Two real server-memory stores, `dev_db` and
 * `prod_db`, as mcpServers entries; every misnamed facade tool a model might send with
 * confirm: true must write nowhere, and an explicit `plugin` must write to that plugin only.
 */

const entity = (name: string) => ({ entities: [{ name, entityType: "probe", observations: ["written by the routing test"] }] });

function fleet(dir: string, mode: "per-plugin" | "compact") {
  const server = (file: string) => ({ command: process.execPath, args: [serverEntry("memory")], env: { MEMORY_FILE_PATH: path.join(dir, file) } });
  return parseConfig(path.join(dir, "agent-tools.config.json"), {
    mcpServers: { dev_db: server("dev.jsonl"), prod_db: server("prod.jsonl") },
    facade: { mode },
  });
}

const stored = (dir: string, file: string) => (existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), "utf8") : "");

for (const mode of ["per-plugin", "compact"] as const) {
  describe(`routing of writes (${mode} facade)`, () => {
    let dir: string;
    let runtime: Runtime;
    let facade: LinkedFacade;
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "routing-"));
      runtime = await createRuntime({ config: fleet(dir, mode), pluginDirs: [], env: { PATH: process.env.PATH ?? "" }, log: silentLogger });
      facade = await linkFacade(runtime, `routing-${mode}`);
    });
    after(async () => {
      await facade.close();
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("misnamed facade tools write nowhere and answer UNKNOWN_FACADE_TOOL with real names", async () => {
      for (const name of ["agent_tools_test_db_call", "agent_tools_qa_db_call", "agent_tools_db_call", "agent_tools_analytics_call", "agent_tools_staging_call", "db_call", "agent_tools_dev_prod_call"]) {
        const { payload, isError } = await facade.call(name, { toolName: "create_entities", arguments: entity(`via ${name}`), confirm: true });
        assert.equal(isError, true, name);
        assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL", `${name}: ${JSON.stringify(payload)}`);
        const tools = payload.error?.details?.tools as string[];
        assert.ok(Array.isArray(tools) && tools.length > 0, "the hint's `details.tools` exists");
        const listed = new Set((await facade.client.listTools()).tools.map((t) => t.name));
        for (const tool of tools) assert.ok(listed.has(tool), `${tool} is a real tool`);
        assert.match(payload.error?.hint ?? "", /details\.tools/);
      }
      assert.equal(stored(dir, "dev.jsonl"), "", "nothing reached dev_db");
      assert.equal(stored(dir, "prod.jsonl"), "", "nothing reached prod_db");
    });

    it("an explicit plugin is honoured: agent_tools_call {plugin: prod_db} writes to prod_db only", async () => {
      const { payload, isError } = await facade.call("agent_tools_call", { plugin: "prod_db", toolName: "create_entities", arguments: entity("explicit"), confirm: true });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal(payload.plugin, "prod_db");
      assert.match(stored(dir, "prod.jsonl"), /explicit/);
      assert.equal(stored(dir, "dev.jsonl"), "");
    });

    it("a tool name and a plugin that disagree run nothing", async () => {
      const name = mode === "compact" ? "agent_tools_dev_db_call" : "agent_tools_dev_db_call";
      const { payload, isError } = await facade.call(name, { plugin: "prod_db", toolName: "create_entities", arguments: entity("conflict"), confirm: true });
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(payload.error?.message ?? "", /nothing was run/);
      assert.doesNotMatch(stored(dir, "prod.jsonl") + stored(dir, "dev.jsonl"), /conflict/);
    });

    it("an unknown explicit plugin runs nothing and names the real ones", async () => {
      const { payload, isError } = await facade.call("agent_tools_call", { plugin: "staging_db", toolName: "create_entities", arguments: entity("staging"), confirm: true });
      assert.equal(isError, true);
      assert.ok(["UNKNOWN_PLUGIN", "UNKNOWN_FACADE_TOOL"].includes(payload.error?.code ?? ""), JSON.stringify(payload));
      const named = (payload.error?.details?.plugins ?? payload.error?.details?.tools) as string[];
      assert.ok(named.length > 0);
      assert.doesNotMatch(stored(dir, "prod.jsonl") + stored(dir, "dev.jsonl"), /staging/);
    });

    it("a near miss of the tool kind on a real prefix is mended, to that plugin only", async () => {
      const { payload, isError } = await facade.call("agent_tools_Prod-DB_cal", { toolName: "create_entities", arguments: entity("near miss"), confirm: true });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal(payload.plugin, "prod_db");
      assert.match(JSON.stringify(payload.repairs), /was read as 'agent_tools_(prod_db_)?call'/);
      assert.match(stored(dir, "prod.jsonl"), /near miss/);
      assert.doesNotMatch(stored(dir, "dev.jsonl"), /near miss/);
    });

    it("an unambiguous start of a prefix is mended; a plugin part that fits two is not", async () => {
      const ok = await facade.call("agent_tools_prod_call", { toolName: "read_graph", arguments: {} });
      assert.equal(ok.isError, false, JSON.stringify(ok.payload));
      assert.equal(ok.payload.plugin, "prod_db");
      assert.equal(stored(dir, "dev.jsonl"), "");
    });
  });
}
