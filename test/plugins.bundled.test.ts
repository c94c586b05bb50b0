import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { callJson, MCP_BIN, runCli } from "./helpers.js";
import { bundledSkillFolders, skillsMetaSource } from "../scripts/skills-meta.js";
import { SKILLS_META_FILE } from "../src/plugins/skills.js";

// The bundled set under plugins/, as a fresh install sees it: no service variables set, none of
// the services' programs on PATH. The runtime must start, list every plugin with what it needs,
// and answer NOT_CONFIGURED rather than fail.

const BUNDLED: Record<string, { needs: RegExp | undefined }> = {
  github: { needs: /GITHUB_TOKEN/ },
  ghcli: { needs: /gh/ },
  tasks: { needs: /TASKS_API_(BASE|KEY)/ },
  pocketbase: { needs: /POCKETBASE_/ },
  // Ollama needs nothing set: it defaults to a local server on 11434.
  ollama: { needs: undefined },
  kite: { needs: /KITE_LITE_BIN|kite-lite/ },
  ccdd: { needs: /CCDD_GATE_SCRIPT/ },
  n8n: { needs: /N8N_MCP_URL or N8N_INSTANCE_URL/ },
};

/** An environment with nothing of the services: only what Node needs, and a PATH without their programs. */
function bareEnv(): Record<string, string> {
  const home = mkdtempSync(path.join(tmpdir(), "agent-tools-bundled-"));
  return { PATH: path.dirname(process.execPath), HOME: home, XDG_STATE_HOME: home, AGENT_TOOLS_LOG: "warn" };
}

describe("the bundled plugins with nothing configured", () => {
  let client: Client;
  let stderr = "";
  before(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: bareEnv(), cwd: mkdtempSync(path.join(tmpdir(), "agent-tools-cwd-")), stderr: "pipe" });
    transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    client = new Client({ name: "bundled-test", version: "0.0.0" });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
  });

  it("starts and lists every bundled plugin in help, with what each needs", async () => {
    const { payload } = await callJson(client, "agent_tools_help");
    const plugins = payload.plugins as { prefix: string; status: string }[];
    for (const [prefix, { needs }] of Object.entries(BUNDLED)) {
      const entry = plugins.find((p) => p.prefix === prefix);
      assert.ok(entry, `${prefix} is listed: ${plugins.map((p) => p.prefix).join(", ")}\n${stderr}`);
      if (needs) {
        assert.match(entry.status, /^not configured: /, prefix);
        assert.match(entry.status, needs, `${prefix} says what to set: ${entry.status}`);
      } else {
        assert.equal(entry.status, "configured, not checked", `${prefix}: nothing answered yet, so not called ready`);
      }
    }
  });

  it("answers NOT_CONFIGURED, with the hint, for a call to an unconfigured plugin", async () => {
    for (const [prefix, { needs }] of Object.entries(BUNDLED)) {
      if (!needs) continue;
      const { payload, isError } = await callJson(client, `agent_tools_${prefix}_call`, { toolName: "anything", arguments: {} });
      assert.equal(isError, true, prefix);
      assert.equal(payload.error?.code, "NOT_CONFIGURED", `${prefix}: ${JSON.stringify(payload.error)}`);
      assert.ok(payload.error?.hint, prefix);
    }
  });
});

describe("agent-tools validate on the bundled set", () => {
  it("passes: every manifest loads, every skill is valid, every related link resolves", async () => {
    const result = await runCli(["validate"], bareEnv());
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as { ok: boolean; plugins: { prefix: string }[]; problems: string[] };
    assert.deepEqual(report.problems, []);
    for (const prefix of Object.keys(BUNDLED)) assert.ok(report.plugins.some((p) => p.prefix === prefix), `${prefix} validated`);
  });
});

describe("skills.meta.json of the bundled plugins", () => {
  it("is what `npm run skills:meta` writes, so a start reads the skills' meta without importing them", async () => {
    const folders = bundledSkillFolders();
    assert.ok(folders.length > 0);
    for (const folder of folders) {
      const committed = readFileSync(path.join(folder, SKILLS_META_FILE), "utf8");
      assert.equal(committed, await skillsMetaSource(folder), `${folder}/${SKILLS_META_FILE} is stale: run \`npm run skills:meta\``);
    }
  });
});
