import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { summedLines } from "../src/runtime/summed-lines.js";
import { until } from "./wait.js";

/**
 * src/runtime/summed-lines.ts: a line that may come on every downstream change is written at most
 * once per interval per key, the repeats counted in one line at the interval's end (the runtime's
 * `plugin 'x' changed its tool list`, once a minute; here 200 ms).
 */

describe("a line said at most once per interval, with a count of the rest", () => {
  it("says the first at once, counts the repeats into one line at the interval's end, and starts again after a quiet interval", async () => {
    const written: string[] = [];
    const lines = summedLines((line) => written.push(line), 200);
    for (let i = 0; i < 50; i++) lines.say("ds", "plugin 'ds' changed its tool list");
    lines.say("other", "plugin 'other' changed its tool list");
    assert.deepEqual(written, ["plugin 'ds' changed its tool list", "plugin 'other' changed its tool list"], "one line per key at once, the repeats held");
    await until(() => written.length === 3, "the summary line of the interval", 10_000);
    assert.match(written[2]!, /^plugin 'ds' changed its tool list: 49 more times in 1 second \(counted: this line is written at most once per 1 second\)$/);
    // No repeat of 'other': nothing more for it. A quiet interval for 'ds' (none since the summary): its next line is said at once.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(written.length, 3, written.join("\n"));
    lines.say("ds", "plugin 'ds' changed its tool list");
    assert.equal(written.length, 4);
    lines.say("ds", "plugin 'ds' changed its tool list");
    lines.close();
    assert.match(written[4] ?? "", /: 1 more time in 1 second/, "close says the count not yet said");
  });
});
