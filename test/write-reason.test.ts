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
    assert.equal(writeReason(manifest({ confirmTools: ["peek"] }), hinted), "in confirmTools (despite readOnlyHint)");
    assert.equal(writeReason(manifest({ confirmTools: ["peek"], readonlyTools: ["peek"] }), hinted), "in confirmTools (despite readOnlyHint and readonlyTools)");
    assert.equal(writeReason(manifest({ confirmTools: ["poke"] }), plain), "in confirmTools");
  });

  it("a tool annotated both readOnlyHint and destructiveHint is a write, unless the plugin lists it read-only", () => {
    const contradictory = { name: "wipe", inputSchema: {}, annotations: { readOnlyHint: true, destructiveHint: true } };
    assert.equal(writeReason(manifest(), contradictory), "readOnlyHint contradicted by destructiveHint");
    assert.equal(writeReason(manifest({ readonlyTools: ["wipe"] }), contradictory), undefined, "the plugin's own list decides");
    assert.equal(writeReason(manifest(), { ...hinted, annotations: { readOnlyHint: true, destructiveHint: false } }), undefined);
  });

  it("a hint the plugin does not trust, and a tool nothing marks read-only", () => {
    assert.equal(writeReason(manifest({ trustReadOnlyHints: false }), hinted), "readOnlyHint not trusted (trustReadOnlyHints: false)");
    assert.equal(writeReason(manifest(), plain), "not marked read-only");
  });
});
