import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeReason } from "../src/runtime/write-reason.js";

/** Why a tool counts as a write: the rule that applied, as CONFIRM_REQUIRED's details.why says it (undefined: read-only). */
describe("writeReason", () => {
  const hinted = { name: "peek", inputSchema: {}, annotations: { readOnlyHint: true } };
  const plain = { name: "poke", inputSchema: {} };
  const manifest = (extra: { confirmTools?: string[]; readonlyTools?: string[]; trustReadOnlyHints?: boolean } = {}) => ({ readonlyTools: [], ...extra });

  it("read-only: listed in readonlyTools, or hinted by a trusted server", () => {
    assert.equal(writeReason(manifest({ readonlyTools: ["poke"] }), plain), undefined);
    assert.equal(writeReason(manifest(), hinted), undefined);
  });

  it("confirmTools wins over the server's hint and over readonlyTools, and says so", () => {
    assert.equal(writeReason(manifest({ confirmTools: ["peek"] }), hinted), "the plugin's confirmTools lists it: the plugin asks confirmation for it although its server marks it readOnlyHint");
    assert.equal(
      writeReason(manifest({ confirmTools: ["peek"], readonlyTools: ["peek"] }), hinted),
      "the plugin's confirmTools lists it: the plugin asks confirmation for it although its server marks it readOnlyHint and readonlyTools lists it",
    );
    assert.equal(writeReason(manifest({ confirmTools: ["poke"] }), plain), "the plugin's confirmTools lists it: the plugin asks confirmation for it");
  });

  it("a hint the plugin does not trust, and a tool nothing marks read-only", () => {
    assert.match(writeReason(manifest({ trustReadOnlyHints: false }), hinted) ?? "", /does not trust its server's hints \(trustReadOnlyHints: false\)/);
    assert.equal(writeReason(manifest(), plain), "it is neither in the plugin's readonlyTools nor marked readOnlyHint by its server");
  });
});
