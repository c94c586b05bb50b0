import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { ROOT } from "./helpers.js";

/**
 * Startup does not pay for just-bash: a module-resolution hook reports every just-bash file
 * loaded while the built server is created and used without agent_tools_exec, then with it.
 */

describe("just-bash loads lazily", () => {
  it("creating the runtime and a facade server loads none of it; the first command line does", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-lazy-"));
    writeFileSync(path.join(dir, "hook.mjs"), 'export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes("/just-bash/")) process.stderr.write("JUST-BASH\\n"); return r; }\n');
    writeFileSync(path.join(dir, "register.mjs"), 'import { register } from "node:module"; register("./hook.mjs", import.meta.url);\n');
    const index = pathToFileURL(path.join(ROOT, "dist", "index.js")).href;
    writeFileSync(
      path.join(dir, "drive.mjs"),
      `const { createRuntime, createFacadeServer, textLayerFor } = await import(${JSON.stringify(index)});
const runtime = await createRuntime({ pluginDirs: [], env: {} });
const session = runtime.createSession();
createFacadeServer({ runtime, session });
process.stderr.write("STARTED\\n");
const answer = await textLayerFor(runtime).exec(session, "echo hi");
process.stderr.write("EXEC " + JSON.stringify(answer.stdout) + "\\n");
await runtime.close();
`,
    );
    const run = spawnSync(process.execPath, ["--import", pathToFileURL(path.join(dir, "register.mjs")).href, path.join(dir, "drive.mjs")], { encoding: "utf8", env: { ...process.env, AGENT_TOOLS_LOG: "silent" } });
    const lines = run.stderr.split("\n");
    const started = lines.indexOf("STARTED");
    assert.ok(started >= 0, run.stderr);
    assert.equal(lines.slice(0, started).includes("JUST-BASH"), false, "nothing of just-bash before the first command line");
    assert.ok(lines.slice(started).includes("JUST-BASH"), "the first command line loads it");
    assert.ok(lines.includes('EXEC "hi\\n"'));
  });
});
