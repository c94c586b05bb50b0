import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { baseEnv, callJson, connect, runCli, writePlugin } from "./helpers.js";

/**
 * What a plugin's names must be and what its manifest may refer to, through the built server and
 * CLI: a second skill of a name already taken and a skill name outside the pattern are load
 * problems (the other skills load); a `discoverContext.skill` that names no skill and a tool in
 * both `readonlyTools` and `confirmTools` are problems; a listed tool the catalog lacks is a
 * notice in validate for a kind whose catalog is in the manifest, and a warning at the first
 * listing of any other.
 */

const ADAPTER = `export default class { async listTools() { return { tools: [{ name: "ping", description: "ping", inputSchema: { type: "object" } }] }; } async call() { return { pong: true }; } }`;
const skill = (name: string | undefined, answer: string) =>
  `export const meta = { ${name === undefined ? "" : `name: ${JSON.stringify(name)}, `}description: "answers ${answer}" };\nexport async function run() { return { from: ${JSON.stringify(answer)} }; }`;

function fleet(): string {
  const root = mkdtempSync(path.join(tmpdir(), "agent-tools-names-"));
  writePlugin(
    path.join(root, "agent-tools-plugin-named"),
    { name: "named", prefix: "named", description: "skills with clashing and odd names", adapter: "./adapter.mjs", readonlyTools: ["ping", "pnig"], confirmTools: ["ping"], discoverContext: { skill: "overview" } },
    {
      "adapter.mjs": ADAPTER,
      "skills/a-first.mjs": skill("dup", "a-first"),
      "skills/b-second.mjs": skill("dup", "b-second"),
      "skills/c-odd.mjs": skill("../../etc x y\nz", "c-odd"),
      "skills/d fine.mjs": skill(undefined, "d"),
      "skills/e-ok.mjs": skill(undefined, "e-ok"),
    },
  );
  writePlugin(path.join(root, "agent-tools-plugin-api"), {
    name: "api",
    prefix: "api",
    description: "a rest plugin whose readonlyTools has a typo",
    adapter: { kind: "rest", baseUrl: "http://127.0.0.1:9", tools: [{ name: "list_items", method: "GET", path: "/items" }] },
    readonlyTools: ["list_item"],
  });
  return root;
}

const DUP = /skill 'b-second' of plugin 'named' failed to load \(.*b-second\.mjs\): its name 'dup' is already the name of the skill in .*a-first\.mjs; give one of them another meta\.name/;
const ODD = /skill 'c-odd' of plugin 'named' failed to load \(.*c-odd\.mjs\): the skill's name "\.\.\/\.\.\/etc x y\\nz" \(meta\.name\) is not a valid skill name: use letters, digits, '_', '\.' or '-', starting with a letter or digit, at most 64 characters; change meta\.name/;
const SPACED = /skill 'd fine' of plugin 'named' failed to load .*: the skill's name "d fine" \(from the file name\) is not a valid skill name: .*; rename the file, or set meta\.name/;
const CONTEXT = /agent-tools-plugin-named\/plugin\.json: field 'discoverContext\.skill' names 'overview', which is not a skill of this plugin \(its skills: dup, e-ok\); name one of them, or remove discoverContext/;
const BOTH = /agent-tools-plugin-named\/plugin\.json: field 'confirmTools' and readonlyTools both list 'ping': a tool either runs without confirm or always needs it; remove it from one of the two/;

describe("skill names and manifest references, in agent-tools validate", () => {
  it("reports a duplicate or invalid skill name, a discoverContext skill that does not exist and a tool in both lists, exits 1; a readonlyTools typo of a rest plugin is a notice", async () => {
    const run = await runCli(["validate", "--plugins-dir", fleet()], baseEnv());
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[]; notices?: string[]; plugins: { prefix: string; skills: number }[] };
    const text = report.problems.join("\n");
    for (const expected of [DUP, ODD, SPACED, CONTEXT, BOTH]) assert.match(text, expected);
    assert.equal(report.plugins.find((p) => p.prefix === "named")?.skills, 2);
    const unknown = (report.notices ?? []).filter((n) => n.includes("which its tools do not include"));
    assert.equal(unknown.length, 1, JSON.stringify(report.notices));
    assert.match(unknown[0]!, /^plugin 'api' \(.*agent-tools-plugin-api\/plugin\.json\): readonlyTools lists 'list_item', which its tools do not include; check the spelling/);
    assert.ok(!text.includes("list_item"), "an unknown name is a notice, not a problem");
  });
});

describe("skill names and manifest references, over stdio", () => {
  it("lists one skill per name and runs the first; help shows the problems; the first listing of a module adapter warns of a listed tool it lacks", async () => {
    const server = await connect(fleet());
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      const text = (payload.problems as string[]).join("\n");
      for (const expected of [DUP, ODD, CONTEXT, BOTH]) assert.match(text, expected);
      const named = (payload.plugins as { prefix: string; skills?: string[] }[]).find((p) => p.prefix === "named");
      assert.deepEqual(named?.skills, ["dup", "e-ok"]);
      const ran = await callJson(server.client, "agent_tools_named_run_skill", { skill: "dup" });
      assert.equal(ran.isError, false, JSON.stringify(ran.payload));
      assert.match(JSON.stringify(ran.payload), /"from":"a-first"/);
      await callJson(server.client, "agent_tools_search", { query: "ping" });
      assert.match(server.stderr(), /plugin 'named' \(.*plugin\.json\): readonlyTools lists 'pnig', which its tools do not include/);
    } finally {
      await server.close();
    }
  });
});
