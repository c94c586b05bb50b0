import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startHttp } from "./http-helpers.js";

/**
 * test/http-helpers.ts startHttp: a server that has not said where it listens in time is killed
 * before the promise rejects. A child left running would keep this test file alive after its tests
 * (its pipes hold node's event loop open), so the run itself would hang here if it were not.
 */
describe("http helpers: startHttp", () => {
  it("kills a server that did not start in time, then rejects naming the timeout", async () => {
    // 1 ms: the server cannot have reached its listening line yet.
    await assert.rejects(startHttp({}, [], 1), /HTTP server did not start in 1 ms \(killed\)/);
  });
});
