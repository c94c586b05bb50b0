import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundleReach, readBundleMeta } from "./helpers.js";

/**
 * What a stdio start parses, read from the build's metafile (scripts/bundle.ts writes
 * dist/bundle-meta.json). The bundle swaps the server SDK's `_shims` (its default validator, a
 * whole inlined Ajv) for src/sdk-server-shims.ts by import name; if an SDK upgrade renamed that
 * module the swap would stop applying without any error, and about 1 MiB of idle memory would come
 * back. The adapters, the MCP client and Ajv load on first use; a static import that pulled them
 * onto the start path would undo the start-time work just as quietly. These tests are what notice.
 */
const staticInputs = (entry: string): Set<string> => bundleReach(entry, (kind) => kind === "import-statement").sources;

describe("bundle: what a start parses", () => {
  it("the server SDK's validator is the lazy stand-in, and no copy of the SDK's inlined Ajv is bundled", () => {
    const meta = readBundleMeta();
    const inputs = Object.keys(meta.inputs);
    assert.ok(inputs.includes("src/sdk-server-shims.ts"), "the server SDK's _shims import resolves to src/sdk-server-shims.ts");
    const serverValidator = inputs.filter((s) => /@modelcontextprotocol\/server\/dist\/(shims|ajvProvider)/.test(s));
    assert.deepEqual(serverValidator, [], "the server SDK's own validator stays out of the bundles");
  });

  it("the stdio server's chunk and what it imports statically hold no adapter kind, no MCP client and no Ajv", () => {
    const meta = readBundleMeta();
    const stdioChunks = Object.entries(meta.outputs).filter(([, output]) => "src/transports/stdio.ts" in output.inputs).map(([file]) => file);
    assert.equal(stdioChunks.length, 1, "one output holds the stdio transport");
    const sources = [...staticInputs(stdioChunks[0]!)];
    assert.ok(sources.length > 20, `the walk reaches the server's start code (${sources.length} files)`);
    assert.ok(sources.includes("src/facade/server.ts"), "the facade server is on the start path");
    const eager = sources.filter((s) => s.includes("@modelcontextprotocol/client/") || /node_modules\/ajv/.test(s) || /^src\/adapters\/(mcp|rest|openapi|cli)\/adapter\.ts$/.test(s));
    assert.deepEqual(eager, [], "these load on first use");
  });
});
