import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { builtServerWithModules, callJson, connect, type Connected } from "./helpers.js";

/**
 * A text module written for the original runtime (0.2.7) exports `register({bash, commands,
 * defineCommand})` and registers its commands itself. This runtime loads modules by another
 * contract; `load` says so and how to port it, rather than only that `name` is missing.
 */

const ORIGINAL_STYLE = `export function register({ bash, commands, defineCommand }) {
  const greet = defineCommand("greet-old", async (args) => ({ stdout: "hello " + args.join(" ") + "\\n", stderr: "", exitCode: 0 }));
  bash.registerCommand(greet);
  commands.set("greet-old", { source: "commands/old-greeter.mjs", mutating: false });
}
`;

const PORTED = `export const name = "new-greeter";
export const description = "Greets, ported to setup(host).";
export const commands = ["greet-new"];
export function setup() {
  return { commands: [{ name: "greet-new", summary: "Say hello.", usage: "greet-new NAME…", run: async (args) => ({ stdout: "hello " + args.join(" ") + "\\n", stderr: "", exitCode: 0 }) }] };
}
`;

describe("a text module with the original runtime's register() contract", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    const built = builtServerWithModules({ "old-greeter.mjs": ORIGINAL_STYLE, "new-greeter.mjs": PORTED }, "agent-tools-orig-module-");
    dir = built.dir;
    server = await connect(undefined, {}, [], built.bin);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const exec = async (command: string): Promise<Record<string, unknown>> => (await callJson(server.client, "agent_tools_exec", { command })).payload;

  it("load names the 0.2.7 register() contract and how to port it (exit 8)", async () => {
    const payload = await exec("load commands/old-greeter.mjs");
    assert.equal(payload.exitCode, 8, JSON.stringify(payload));
    const stderr = String(payload.stderr);
    assert.match(stderr, /old-greeter\.mjs: exports register\(\), the text-module contract of the original runtime \(0\.2\.7\), which this runtime does not load/);
    assert.match(stderr, /export 'name' \(kebab-case\), 'description', 'commands'.*'setup\(host\)'/);
    assert.match(stderr, /"Text modules"/);
    assert.doesNotMatch(stderr, /must export 'name'/);
  });

  it("the same command, ported to name/commands/setup, loads and runs", async () => {
    const loaded = await exec("load commands/new-greeter.mjs");
    assert.equal(loaded.exitCode, 0, JSON.stringify(loaded));
    const greeted = await exec("greet-new Ada");
    assert.equal(greeted.exitCode, 0, JSON.stringify(greeted));
    assert.match(String(greeted.stdout), /hello Ada/);
  });
});
