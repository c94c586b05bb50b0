import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { describeMissing, missingRequirements, resolveBin } from "../src/plugins/requirements.js";

/** `requires.bins` entries of the form `${VAR:-name}`: the program VAR names, else `name` on PATH. */

const node = process.execPath;
const nodeDir = path.dirname(node);

describe("bins requirements with a variable", () => {
  it("resolves to the variable's program when set, else to the fallback", () => {
    assert.deepEqual(resolveBin("${TOOL_BIN:-tool}", { TOOL_BIN: "/opt/tool" }), { variable: "TOOL_BIN", fallback: "tool", program: "/opt/tool" });
    assert.deepEqual(resolveBin("${TOOL_BIN:-tool}", {}), { variable: "TOOL_BIN", fallback: "tool", program: "tool" });
    assert.deepEqual(resolveBin("plain", {}), { program: "plain" });
  });

  it("is met by the variable naming an executable, or by the fallback on PATH", () => {
    assert.deepEqual(missingRequirements({ env: [], bins: ["${RUNNER:-nope-not-here}"] }, { RUNNER: node, PATH: "" }).bins, []);
    assert.deepEqual(missingRequirements({ env: [], bins: ["${RUNNER:-node}"] }, { PATH: nodeDir }).bins, []);
    assert.deepEqual(missingRequirements({ env: [], bins: ["${RUNNER:-node}"] }, { RUNNER: "/nonexistent/bin", PATH: nodeDir }).bins, ["${RUNNER:-node}"], "a set variable is not second-guessed");
  });

  it("says what to set or install", () => {
    const missing = missingRequirements({ env: ["TOKEN"], bins: ["${KITE_LITE_BIN:-kite-lite}", "jq", "${ONLY_VAR}"] }, { PATH: "" });
    assert.equal(describeMissing(missing), "set TOKEN; install jq (not found on PATH); set KITE_LITE_BIN to the kite-lite program or install kite-lite on PATH; set ONLY_VAR to an executable program");
  });
});

describe("findOnPath on Windows", () => {
  it("tries each PATHEXT extension for a bare name, as the shell does", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { findOnPath } = await import("../src/plugins/requirements.js");
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-pathext-"));
    writeFileSync(path.join(dir, "gh.EXE"), "");
    assert.equal(findOnPath("gh", { PATH: dir, PATHEXT: ".COM;.EXE" }, "win32"), path.join(dir, "gh.EXE"));
    assert.equal(findOnPath("gh", { PATH: dir, PATHEXT: ".COM" }, "win32"), undefined);
    assert.equal(findOnPath("gh", { PATH: dir }, "linux"), undefined, "elsewhere a name is the file's whole name");
  });
});
