import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseArguments, typedValue } from "../src/text/argv.js";
import { exitCodeFor, EXIT, EXIT_TABLE } from "../src/text/exit-codes.js";
import { ERROR_CODES } from "../src/runtime/errors.js";

describe("plugin command arguments", () => {
  it("reads a JSON object, --name value, --name=value, bare flags and --confirm", () => {
    assert.deepEqual(parseArguments(['{"owner":"a","n":1}', "--confirm"]), { ok: true, args: { owner: "a", n: 1 }, confirm: true, positionals: [] });
    assert.deepEqual(parseArguments(["--state", "open", "--limit=5", "--draft", "--labels", '["x"]']), {
      ok: true,
      args: { state: "open", limit: 5, draft: true, labels: ["x"] },
      confirm: false,
      positionals: [],
    });
    assert.deepEqual(parseArguments(["--id", '"123"']).ok && parseArguments(["--id", '"123"']), { ok: true, args: { id: "123" }, confirm: false, positionals: [] });
    assert.deepEqual(parseArguments(["word", "--", "--not-a-flag"]), { ok: true, args: {}, confirm: false, positionals: ["word", "--not-a-flag"] });
  });

  it("takes JSON from stdin only when the line gives no arguments", () => {
    assert.deepEqual(parseArguments([], '{"a":1}\n'), { ok: true, args: { a: 1 }, confirm: false, positionals: [] });
    assert.deepEqual(parseArguments(["--b", "2"], '{"a":1}'), { ok: true, args: { b: 2 }, confirm: false, positionals: [] });
  });

  it("names what is wrong", () => {
    const broken = parseArguments(["{owner:"]);
    assert.equal(broken.ok, false);
    assert.match(!broken.ok ? broken.message : "", /do not parse.*single quotes/);
    assert.match(JSON.stringify(parseArguments(["--x", "{bad"])), /--x: '\{bad' looks like JSON but does not parse/);
    assert.match(JSON.stringify(parseArguments(["--a b"])), /not a valid --name/);
    assert.match(JSON.stringify(parseArguments(["{}", "{}"])), /more than one JSON object/);
    assert.match(JSON.stringify(parseArguments([], "[1]")), /^\{"ok":true/, "stdin that is not an object is not arguments");
    assert.deepEqual(typedValue("007"), { ok: true, value: "007" }, "a leading zero stays a string");
  });
});

describe("exit codes", () => {
  it("map every runtime error code, and the table lists every exit code once", () => {
    for (const code of ERROR_CODES) assert.ok(exitCodeFor(code) > 0, code);
    assert.equal(exitCodeFor("CONFIRM_REQUIRED"), 4);
    assert.equal(exitCodeFor("NOT_CONFIGURED"), 3);
    const values = Object.values(EXIT).sort((a, b) => a - b);
    assert.deepEqual(EXIT_TABLE.map((e) => e.code).sort((a, b) => a - b), values);
  });
});
