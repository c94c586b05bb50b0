import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Logger } from "../src/adapters/types.js";
import { isOffValue, switchFromEnv, waitFromEnv } from "../src/env-switch.js";
import { createRuntime } from "../src/runtime/runtime.js";

/**
 * Environment switches and waits, one parser each: AGENT_TOOLS_SEMANTIC_WAIT_MS and
 * AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS take the same values and say the same when a value is wrong
 * (the first was read in the search index and ignored bad values silently).
 */

describe("waitFromEnv", () => {
  it("milliseconds, or forever (ready, Infinity) for no limit; unset is undefined", () => {
    const warned: string[] = [];
    const warn = (message: string) => void warned.push(message);
    assert.equal(waitFromEnv("W", undefined, warn), undefined);
    assert.equal(waitFromEnv("W", "  ", warn), undefined);
    assert.equal(waitFromEnv("W", "0", warn), 0);
    assert.equal(waitFromEnv("W", " 250 ", warn), 250);
    for (const forever of ["forever", "ready", "Infinity", "FOREVER"]) assert.equal(waitFromEnv("W", forever, warn), Number.POSITIVE_INFINITY, forever);
    assert.deepEqual(warned, []);
  });

  it("anything else is said, naming the variable and what it takes, and ignored", () => {
    const warned: string[] = [];
    for (const bad of ["-1", "soon", "1e999", "NaN"]) assert.equal(waitFromEnv("AGENT_TOOLS_X_WAIT_MS", bad, (m) => void warned.push(m)), undefined, bad);
    assert.equal(warned.length, 4);
    assert.match(warned[1] ?? "", /^AGENT_TOOLS_X_WAIT_MS='soon' is not a number of milliseconds \(0 or more\) or 'forever'; using the default$/);
  });

  it("isOffValue: off, 0, false, no in any case", () => {
    for (const off of ["off", " OFF ", "0", "false", "No"]) assert.equal(isOffValue(off), true, off);
    for (const on of [undefined, "", "on", "1", "yes"]) assert.equal(isOffValue(on), false, String(on));
  });
});

describe("the runtime reads both semantic waits the same way", () => {
  it("a wrong value of either is said at start", async () => {
    const warnings: string[] = [];
    const log: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };
    const runtime = await createRuntime({ pluginDirs: [], env: { AGENT_TOOLS_SEMANTIC_WAIT_MS: "soon", AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS: "later" }, log });
    try {
      assert.ok(warnings.some((w) => w.startsWith("AGENT_TOOLS_SEMANTIC_WAIT_MS='soon' is not a number")), warnings.join("\n"));
      assert.ok(warnings.some((w) => w.startsWith("AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS='later' is not a number")), warnings.join("\n"));
    } finally {
      await runtime.close();
    }
  });
});

describe("switchFromEnv", () => {
  it("on and off words in any case; unset is undefined; anything else is said and ignored", () => {
    const warned: string[] = [];
    const warn = (message: string) => void warned.push(message);
    for (const on of ["on", "1", "TRUE", " yes ", "enabled"]) assert.equal(switchFromEnv("S", on, warn), true, on);
    for (const off of ["off", "0", "False", "no", "DISABLED"]) assert.equal(switchFromEnv("S", off, warn), false, off);
    assert.equal(switchFromEnv("S", undefined, warn), undefined);
    assert.equal(switchFromEnv("S", " ", warn), undefined);
    assert.deepEqual(warned, []);
    assert.equal(switchFromEnv("AGENT_TOOLS_X", " bogus ", warn), undefined);
    assert.deepEqual(warned, ["AGENT_TOOLS_X='bogus' is neither on nor off; use off (or 0, false, no) to turn it off, on to keep it on; using the default"]);
  });
});
