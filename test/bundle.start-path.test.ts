import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { baseEnv, bundleReach, FIXTURES, MCP_BIN, readBundleMeta } from "./helpers.js";

/**
 * What a stdio start parses, read from the build's metafile (scripts/bundle.ts writes
 * dist/bundle-meta.json). The bundle swaps the server SDK's `_shims` (its default validator, a
 * whole inlined Ajv) for src/sdk-server-shims.ts by import name; if an SDK upgrade renamed that
 * module the swap would stop applying without any error, and about 1 MiB of idle memory would come
 * back. The adapters, the MCP client and Ajv load on first use; a static import that pulled them
 * onto the start path would undo the start-time work just as quietly. node:crypto is reached
 * through src/node-crypto.ts, never a static import; a start loads it for one thing only, the
 * skill files' digests (src/plugins/skills.ts skillFileHash: native hashing saves 10-15 ms of a
 * start for ~1 MiB of idle memory). The last test asks a running server. These tests are what notice.
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

  it("the stdio server's static imports hold no node:crypto", () => {
    const meta = readBundleMeta();
    const stdioChunk = Object.entries(meta.outputs).find(([, output]) => "src/transports/stdio.ts" in output.inputs)![0];
    const { externals } = bundleReach(stdioChunk, (kind) => kind === "import-statement");
    assert.ok(externals.size > 0, `the walk reaches package imports (${[...externals].join(", ")})`);
    assert.ok(!externals.has("node:crypto") && !externals.has("crypto"), "node:crypto is imported on first use (src/node-crypto.ts)");
  });

  it("a cold start of the default fleet, once listed, and a warm start answering tools/list and help, have loaded only the validators they used (and no web streams)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-start-crypto-"));
    // The default fleet (bundled plugins, embedded servers) plus a configured server whose settings
    // read a secret: its value is digested into the catalog key at every start.
    const config = path.join(dir, "agent-tools.config.json");
    const startLog = path.join(dir, "starts.log");
    const serverStarts = () => (existsSync(startLog) ? readFileSync(startLog, "utf8").trim().split("\n").length : 0);
    writeFileSync(config, JSON.stringify({ mcpServers: { keyed: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "recording-server.mjs")], env: { API_KEY: "${START_PROBE_SECRET}", START_LOG: startLog } } } }));
    const env = baseEnv({ AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0", AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache"), XDG_STATE_HOME: path.join(dir, "state"), AGENT_TOOLS_CONFIG: config, START_PROBE_SECRET: "sk-probe-3f9a1c" });
    const catalogs = () => (existsSync(path.join(dir, "cache", "catalogs")) ? readdirSync(path.join(dir, "cache", "catalogs")).filter((n) => n.endsWith(".json")).length : 0);
    const start = async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", path.join(FIXTURES, "module-load-probe.mjs"), MCP_BIN], env, cwd: dir, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: "start-path-test", version: "0.0.0" });
      await client.connect(transport);
      /** The probe's answer: built-in modules and the precompiled validators (by name) loaded so far. */
      const probe = async (): Promise<{ modules: string[]; validators: string[] }> => {
        const from = stderr.length;
        process.kill(transport.pid!, "SIGUSR2");
        for (let waited = 0; waited < 10_000; waited += 50) {
          const modules = /\[modules\] (.*)\n/.exec(stderr.slice(from));
          const required = /\[required\] (.*)\n/.exec(stderr.slice(from));
          if (modules && required) {
            const files = JSON.parse(required[1]!) as string[];
            const validators = files.filter((f) => path.basename(path.dirname(f)) === "validators.generated").map((f) => path.basename(f, ".cjs"));
            return { modules: JSON.parse(modules[1]!) as string[], validators: validators.sort() };
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`the probe did not answer; stderr: ${stderr.slice(-500)}`);
      };
      const modules = async (): Promise<string[]> => (await probe()).modules;
      return { client, modules, probe, close: () => client.close() };
    };
    try {
      // Cold: the background listing stores every catalog (and builds adapters, which may load crypto).
      const cold = await start();
      try {
        await cold.client.listTools();
        let [count, stableSince] = [0, Date.now()];
        for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
          if (catalogs() !== count) [count, stableSince] = [catalogs(), Date.now()];
          if (count >= 2 && serverStarts() > 0 && Date.now() - stableSince > 1500) break;
        }
        assert.ok(count >= 2, `the cold start stored the fleet's catalogs, the keyed server's among them (${count})`);
        assert.equal(serverStarts(), 1, "the cold start listed the keyed server once");
        // Listing built the adapters and loaded the MCP client: its OAuth helper reads WebCrypto
        // only when a PKCE challenge is made (scripts/bundle.ts lazyClientGlobals), and the REST
        // adapter's idempotency keys reach node:crypto only on a call.
        const { modules: listed, validators } = await cold.probe();
        // One file per precompiled validator (src/validators.generated/): the listing's adapters
        // load their blocks' validators, not all sixteen (about 2.5 MiB of heap as one file). The
        // config file turns the embedded filesystem server off: no mcpFilesystemBlock here.
        assert.ok(validators.includes("mcpBlock"), `the MCP adapters' block was checked (${validators.join(", ")})`);
        assert.deepEqual(validators.filter((v) => !["config", "serverEntry", "mcpBlock", "restBlock", "restTool"].includes(v)), [], "no validator of anything this start did not check");
        assert.deepEqual(listed.filter((m) => /webstreams\/(transform|readable|writable)stream/.test(m)), [], "nor web streams (the SSE parser's class is made on first use)");
      } finally {
        await cold.close();
      }
      const warm = await start();
      try {
        await warm.client.listTools();
        await warm.client.callTool({ name: "agent_tools_help", arguments: {} });
        const { modules: loaded, validators: warmValidators } = await warm.probe();
        assert.deepEqual(warmValidators.filter((v) => v !== "config" && v !== "serverEntry"), [], "a warm start checks its config file, and builds no adapter: no block validator");
        assert.ok(loaded.includes("NativeModule fs"), "the probe lists built-in modules");
        assert.equal(serverStarts(), 1, "the warm start found the keyed server's catalog by its key: it did not start the server");
      } finally {
        await warm.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
