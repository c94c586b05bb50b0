import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, writePlugin, type Connected } from "./helpers.js";

/**
 * A skill's `meta.args` as a union (anyOf, oneOf): discover's `params` stars a name every branch
 * requires (README "q* when required whichever branch is taken"), and only such a name, over the
 * built server on stdio.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-union-required-"));
const skill = (args: unknown): string => `export const meta = { description: "Find by a query.", args: ${JSON.stringify(args)} };\nexport async function run(adapter, args) { return { got: args }; }\n`;
const object = (properties: string[], required: string[]) => ({ type: "object", properties: Object.fromEntries(properties.map((name) => [name, { type: "string" }])), required });

writePlugin(
  path.join(dir, "agent-tools-plugin-finder"),
  { name: "finder", prefix: "finder", description: "Finds things (tests only)", adapter: { kind: "mcp", command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } },
  {
    // q is required in both branches; id in one only.
    "skills/any-branch.mjs": skill({ anyOf: [object(["q", "id"], ["q", "id"]), object(["q", "name"], ["q"])] }),
    // oneOf nested under allOf, and a $ref to a branch: q everywhere, kind in one branch only.
    "skills/one-branch.mjs": skill({ $defs: { byName: object(["q", "name"], ["name", "q"]) }, allOf: [{ oneOf: [{ $ref: "#/$defs/byName" }, object(["q", "kind"], ["q", "kind"])] }] }),
    // No name required by every branch: nothing starred.
    "skills/either.mjs": skill({ anyOf: [object(["id"], ["id"]), object(["name"], ["name"])] }),
  },
);

describe("discover stars a name every branch of a union requires", () => {
  let server: Connected;
  before(async () => {
    server = await connect(dir);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const paramsOf = async (name: string): Promise<string | undefined> => {
    const { payload, isError } = await callJson(server.client, "agent_tools_finder_discover", { query: name, limit: 20 });
    assert.equal(isError, false, JSON.stringify(payload));
    return (payload.matches as { kind: string; name: string; params?: string }[]).find((m) => m.kind === "skill" && m.name === name)?.params;
  };

  it("anyOf: q (in every branch) is starred, id (in one) is not", async () => {
    assert.equal(await paramsOf("any-branch"), "q*, id, name");
  });

  it("oneOf under allOf, a branch behind $ref: q is starred, name and kind are not", async () => {
    assert.equal(await paramsOf("one-branch"), "q*, name, kind");
  });

  it("branches that share no required name: none is starred", async () => {
    assert.equal(await paramsOf("either"), "id, name");
  });
});
