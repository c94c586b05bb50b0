import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Server } from "@modelcontextprotocol/server";
import { createFacade, facadeCallEntry } from "../src/facade/server.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { ROOT } from "./helpers.js";

// The per-request factory (a modern HTTP request builds a Server) must not build what only the
// stdio fast lane uses: the lane's entry is made when a lane first asks for it, and kept.
describe("facade Server: the fast lane's entry is built on first use", async () => {
  const runtime = await createRuntime({ pluginDirs: [path.join(ROOT, "test", "fixtures", "plugins", "agent-tools-plugin-notes")], log: silentLogger, env: {} });
  after(() => runtime.close());
  const facade = createFacade(runtime);
  const scope = { session: () => runtime.createSession("lane-entry") };

  it("a new Server holds only the recipe, not the entry", () => {
    const server = facade.server(scope) as Server & { laneEntry?: unknown };
    assert.equal(typeof server.laneEntry, "function", "the entry must not be built before a lane asks for it");
  });

  it("the first ask builds the entry once; later asks get the same one", () => {
    const server = facade.server(scope) as Server & { laneEntry?: unknown };
    const entry = facadeCallEntry(server);
    assert.ok(entry, "a facade Server has a tools/call entry");
    assert.equal(typeof entry.handle, "function");
    assert.deepEqual(entry.serverInfo, facade.info);
    assert.equal(server.laneEntry, entry, "the built entry is kept on the Server");
    assert.equal(facadeCallEntry(server), entry);
    // The envelope memory starts with the first ask and knows none yet.
    assert.equal(entry.acceptedEnvelope({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }), false);
  });

  it("each Server has its own entry, and a plain SDK Server has none", () => {
    assert.notEqual(facadeCallEntry(facade.server(scope)), facadeCallEntry(facade.server(scope)));
    assert.equal(facadeCallEntry(new Server({ name: "plain", version: "0" })), undefined);
  });
});
