import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, readBundleMeta, type Connected } from "./helpers.js";

/**
 * The bundles swap the client SDK's `_shims` (its Ajv-backed default validator) for
 * src/sdk-client-shims.ts, which loads the SDK's own validator the first time a schema is to be
 * checked (scripts/bundle.ts lazySdkShims). What must not change: a downstream tool's
 * structuredContent is still checked against its outputSchema by the SDK client's validator (a
 * mismatch is passed on with a warning, output-check.ts), through the bin people run.
 */

describe("bundle: the MCP client's output-schema validator, loaded on first use", () => {
  let dir: string;
  let rt: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-client-validator-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { lane: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "lane-server.mjs")], readonlyTools: ["typed"] } } }));
    rt = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off" });
  });
  after(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the client SDK's own validator is not in the bundles; the stand-in is", () => {
    const inputs = Object.keys(readBundleMeta().inputs);
    assert.ok(inputs.includes("src/sdk-client-shims.ts"), "the client SDK's _shims import resolves to src/sdk-client-shims.ts");
    assert.deepEqual(inputs.filter((s) => /@modelcontextprotocol\/client\/dist\/(shims|ajvProvider)/.test(s)), [], "its Ajv stays out of the bundles");
  });

  it("structuredContent that fits the tool's outputSchema passes; one that does not is passed on with the SDK validator's finding as a warning", async () => {
    const fits = await callJson(rt.client, "agent_tools_lane_call", { toolName: "typed", arguments: { n: 3 } });
    assert.equal(fits.isError, false, JSON.stringify(fits.payload));
    assert.equal(fits.payload.warnings, undefined);
    const misfit = await callJson(rt.client, "agent_tools_lane_call", { toolName: "typed", arguments: { n: "three" } });
    assert.equal(misfit.isError, false, JSON.stringify(misfit.payload));
    // Ajv's own words for the failing field: the SDK's validator ran.
    assert.match(JSON.stringify(misfit.payload.warnings), /does not match its own outputSchema \(data\/n must be number\)/);
  });
});
