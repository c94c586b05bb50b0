import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseConfig } from "../src/config/config.js";
import { compileSchema, SCHEMAS_PER_AJV, validatorCounts } from "../src/json-schema.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";

/**
 * Compiled argument validators live as long as the catalog entry they were compiled for: a real
 * downstream server whose tool list changes again and again (tools/list_changed, so the runtime
 * lists it anew and every tool gets a new schema object), a call after each refresh (which
 * compiles the new schema), and after garbage collection only a bounded number are still alive.
 * Before, the one Ajv of the process kept every one of them.
 */

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function collectGarbage(): Promise<void> {
  // FinalizationRegistry callbacks run on later turns of the event loop, after a collection.
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("compiled tool schemas go with their catalog entry", () => {
  let dir: string;
  let runtime: Runtime;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-schema-memory-"));
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), { mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE], readonlyTools: ["add_tool"] } } });
    runtime = await createRuntime({ config, skipBundled: true, env: {}, log: silentLogger, catalogCache: false, cwd: dir });
  });
  after(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`refreshing a catalog ${2 * SCHEMAS_PER_AJV + 20} times keeps at most ${SCHEMAS_PER_AJV} + 1 of its compiled validators alive`, async () => {
    const refreshes = 2 * SCHEMAS_PER_AJV + 20;
    const session = runtime.createSession("schema-memory");
    const echo = async (text: string) => {
      const answer = await runtime.call(session, "fx", { toolName: "echo", arguments: { text } });
      assert.equal(answer.isError, false, JSON.stringify(answer));
    };
    await echo("first");
    await collectGarbage();
    const start = validatorCounts();
    for (let i = 0; i < refreshes; i++) {
      const changed = new Promise<void>((resolve) => {
        const off = runtime.onToolsChanged((prefix) => {
          if (prefix !== "fx") return;
          off();
          resolve();
        });
      });
      await runtime.call(session, "fx", { toolName: "add_tool", arguments: { name: `added_${i}` } });
      await changed;
      await echo(`after refresh ${i}`);
    }
    // A bad argument is still refused by the latest catalog's schema: validation is not lost.
    const refused = await runtime.call(session, "fx", { toolName: "echo", arguments: { text: 42 } });
    assert.match(JSON.stringify(refused), /ARG_VALIDATION_FAILED/);
    await collectGarbage();
    const end = validatorCounts();
    assert.ok(end.compiled - start.compiled >= refreshes, `every refresh brought a new schema, compiled on its first call (${end.compiled - start.compiled} compiled)`);
    assert.ok(end.alive - start.alive <= SCHEMAS_PER_AJV + 1, `compiled validators still alive after ${refreshes} refreshes: ${end.alive - start.alive}`);
  });

  it("one schema object compiles once", () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const first = compileSchema(schema);
    const before = validatorCounts().compiled;
    assert.equal(compileSchema(schema), first);
    assert.equal(validatorCounts().compiled, before);
  });
});
