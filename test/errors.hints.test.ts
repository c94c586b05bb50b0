import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ERROR_CODES, HINTS, RuntimeError } from "../src/runtime/errors.js";
import { ROOT } from "./helpers.js";

describe("error codes and hints", () => {
  it("every code has a hint and every hint has a code", () => {
    assert.deepEqual(Object.keys(HINTS).sort(), [...ERROR_CODES].sort());
    for (const code of ERROR_CODES) assert.ok(HINTS[code].length > 20, `${code} has a real hint`);
  });

  it("a RuntimeError carries its code's hint into the payload", () => {
    const error = new RuntimeError("UNKNOWN_TOOL", "no tool 'x'", { suggestions: ["y"] });
    assert.deepEqual(error.toPayload(), { code: "UNKNOWN_TOOL", message: "no tool 'x'", hint: HINTS.UNKNOWN_TOOL, details: { suggestions: ["y"] } });
  });

  it("every code the source emits is a known code", () => {
    const emitted = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(".ts")) for (const m of readFileSync(full, "utf8").matchAll(/new RuntimeError\(\s*"([A-Z_]+)"/g)) emitted.add(m[1] ?? "");
      }
    };
    walk(path.join(ROOT, "src"));
    for (const code of emitted) assert.ok((ERROR_CODES as readonly string[]).includes(code), code);
    assert.ok(emitted.size >= 9);
  });
});
