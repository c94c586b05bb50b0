import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromThrown, RuntimeError } from "../src/errors.js";

/**
 * Values that throw when they are read: a revoked Proxy (every trap throws, `instanceof` too) and
 * a Proxy whose getPrototypeOf trap throws. Unit level: a plugin's module code is what throws such
 * a value or puts one in an error's details, and no transport is needed to show the rule.
 */

function unreadables(): [string, object][] {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const trapped = new Proxy({}, { getPrototypeOf: () => { throw new Error("proto trap"); } });
  return [["a revoked Proxy", revoked], ["a Proxy whose getPrototypeOf throws", trapped]];
}

describe("values that throw when read", () => {
  it("fromThrown says such a thrown value as one that could not be read, instead of throwing", () => {
    for (const [label, value] of unreadables()) {
      const error = fromThrown(value, "skill deploy");
      assert.equal(error.code, "UPSTREAM_ERROR", label);
      assert.match(error.message, /^skill deploy: it threw a value that could not be read \(reading it threw: /, label);
    }
  });

  it("such a value nested in details is replaced where it is, and the other fields are kept", () => {
    for (const [label, value] of unreadables()) {
      const payload = new RuntimeError("UPSTREAM_ERROR", "m", { repo: "a/b", x: value, list: [1, 2] }).toPayload();
      const details = payload.details as Record<string, unknown>;
      assert.equal(details.repo, "a/b", label);
      assert.deepEqual(details.list, [1, 2], label);
      assert.match(String(details.x), /^\[not JSON: a value that threw when read \(.+\) at details\.x; the plugin should send plain data\]$/, label);
    }
  });
});
