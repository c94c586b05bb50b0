import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { builtServerWithModules, callJson, connect, type Connected } from "./helpers.js";

/**
 * A text module that fails to import may quote a credential in its error (a module that reads its
 * token at import and puts it in the message). `status` lists it and `load` reports it, both to
 * the model: over the real stdio server, the value is masked by the runtime's redactor in both.
 * The built server is copied beside a commands/ folder of its own, so the broken module never
 * sits in the project's commands/ where other tests list them.
 */

const SECRET = "leaky-module-secret-7f3a9c2e51";

describe("text modules that fail to import", () => {
  let copy: string;
  let server: Connected;
  before(async () => {
    const built = builtServerWithModules({ "leaky.mjs": 'throw new Error("token " + process.env.SOME_API_TOKEN + " was refused");\n' }, "agent-tools-text-leak-");
    copy = built.dir;
    server = await connect(undefined, { SOME_API_TOKEN: SECRET }, [], built.bin);
  });
  after(async () => {
    await server?.close();
    rmSync(copy, { recursive: true, force: true });
  });

  async function exec(command: string): Promise<{ payload: Record<string, unknown>; text: string }> {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command });
    return { payload, text: JSON.stringify(payload) };
  }

  it("status names the module and why it failed, with the credential masked", async () => {
    const { payload, text } = await exec("status");
    assert.ok(!text.includes(SECRET), `status shows the token: ${text}`);
    const modules = JSON.stringify((payload.result as Record<string, unknown> | undefined) ?? payload);
    assert.match(modules, /"module":"commands\/leaky\.mjs","problem":"[^"]*failed to import[^"]*token \[redacted\] was refused/);
  });

  it("load reports the import failure with the credential masked", async () => {
    const { payload, text } = await exec("load commands/leaky.mjs");
    assert.notEqual(payload.exitCode, 0);
    assert.ok(!text.includes(SECRET), `load shows the token: ${text}`);
    assert.match(String(payload.stderr), /leaky\.mjs failed to import: .*token \[redacted\] was refused/);
  });
});
