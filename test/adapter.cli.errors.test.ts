import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromThrown } from "../src/runtime/errors.js";
import { cliAdapter, ctx, hostEnv } from "./fixtures/cli/helpers.js";

/** The cli kind's `errors` rules, with the `fail` fixture script (prints its argument to stderr, exits with a code). */

async function failure(block: Record<string, unknown>, args: Record<string, unknown>): Promise<Error & { code?: string; hint?: string; details?: Record<string, unknown>; exitCode?: number }> {
  const adapter = await cliAdapter(block, hostEnv());
  try {
    await adapter.call("run", args, ctx());
  } catch (error) {
    return error as Error;
  }
  throw new Error("the call did not fail");
}

const RULES = [
  { exitCode: 4, code: "NOT_CONFIGURED", message: "not logged in", hint: "log in first", details: { fix: "login" } },
  { stderrMatches: "no repo named '(?<repo>[^']+)'", message: "missing {match.repo} (asked for {args.what})", details: { repo: "{match.repo}" } },
  { exitCode: [2, 3], stderrMatches: "busy", message: "busy: {stderr}" },
];

function block(): Record<string, unknown> {
  return { program: "fail", allowlist: ["fail"], errors: RULES, tools: [{ name: "run", argv: ["{code}", "{text}"], optional: { what: ["--what", "{what}"] } }] };
}

describe("cli errors rules", () => {
  it("an exit code rule: its code, message, hint and details", async () => {
    const error = await failure(block(), { code: "4", text: "whatever" });
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /^fail \(tool 'run'\) exited with code 4: not logged in$/);
    // The rule's hint, led by whom to tell: a NOT_CONFIGURED is the user's to fix (errors.ts forTheUser).
    assert.equal(error.hint, "Tell the user: log in first");
    assert.deepEqual(error.details, { exitCode: 4, fix: "login" });
  });

  it("a stderr rule with named groups and the call's arguments", async () => {
    const error = await failure(block(), { code: "1", text: "no repo named 'a/b' here", what: "a/b" });
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /exited with code 1: missing a\/b \(asked for a\/b\)$/);
    assert.deepEqual(error.details, { exitCode: 1, repo: "a/b" });
    assert.equal(fromThrown(error).toPayload().details?.repo, "a/b");
  });

  it("both conditions must hold; no match keeps the generic message", async () => {
    const both = await failure(block(), { code: "3", text: "busy now" });
    assert.match(both.message, /exited with code 3: busy: error: busy now$/);
    const neither = await failure(block(), { code: "1", text: "busy now" });
    assert.match(neither.message, /exited with code 1; stderr: error: busy now$/);
    // No rule gave a hint: the program answered, which is not "the service failed" (own-error.ts).
    assert.match(neither.hint ?? "", /^The program answered with an error of its own \(`message` quotes what it printed\)\. If it names an id, an argument or a state/);
  });

  it("a rule without a condition, or with a bad pattern, names the field", async () => {
    await assert.rejects(cliAdapter({ program: "fail", errors: [{ message: "m" }], tools: [{ name: "run", argv: [] }] }), /adapter\.errors\[0\] needs 'exitCode' or 'stderrMatches'/);
    await assert.rejects(cliAdapter({ program: "fail", errors: [{ stderrMatches: "[", message: "m" }], tools: [{ name: "run", argv: [] }] }), /adapter\.errors\[0\]\.stderrMatches is not a valid regular expression/);
  });
});
