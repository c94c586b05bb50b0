import assert from "node:assert/strict";
import fc from "fast-check";
import { after, before, describe, it } from "node:test";
import { fuzzPayload, httpTarget, stdioTarget, type FuzzTarget } from "./fuzz-kit.js";

// Property-based traffic against the built server: wrong types, unknown methods, bad ids, huge
// strings, deep nesting, truncated JSON, binary noise. bench/fuzz.ts runs the same at 100,000.

const RUNS = Number(process.env.AGENT_TOOLS_FUZZ_RUNS ?? 150);

for (const make of [stdioTarget, httpTarget]) {
  describe(`fuzzing over ${make === stdioTarget ? "stdio" : "HTTP"}`, () => {
    let target: FuzzTarget;
    before(async () => {
      target = await make();
    });
    after(async () => {
      await target.close();
    });

    it(`survives ${RUNS} generated cases, answering each valid request and the next ping`, async () => {
      await fc.assert(
        fc.asyncProperty(fuzzPayload, async (payload) => {
          const outcome = await target.run(payload);
          assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.reason}\npayload: ${payload.slice(0, 300)}`);
        }),
        { numRuns: RUNS, seed: Number(process.env.AGENT_TOOLS_FUZZ_SEED ?? 20261202), endOnFailure: true },
      );
    });
  });
}
