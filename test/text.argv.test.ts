import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { limitArgument, parseArguments, parseNamedCall, typedValue } from "../src/text/argv.js";
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
      flags: { typed: { limit: "5", labels: '["x"]' }, bare: ["draft"], inexact: [], unparsed: {}, written: { state: "open", limit: "5", labels: '["x"]' } },
    });
    assert.deepEqual(parseArguments(["--id", '"123"']).ok && parseArguments(["--id", '"123"']), { ok: true, args: { id: "123" }, confirm: false, positionals: [], flags: { typed: {}, bare: [], inexact: [], unparsed: {}, written: { id: '"123"' } } });
    assert.deepEqual(parseArguments(["word", "--", "--not-a-flag"]), { ok: true, args: {}, confirm: false, positionals: ["word", "--not-a-flag"] });
  });

  it("takes JSON from stdin only when the line gives no arguments", () => {
    assert.deepEqual(parseArguments([], '{"a":1}\n'), { ok: true, args: { a: 1 }, confirm: false, positionals: [] });
    assert.deepEqual(parseArguments(["--b", "2"], '{"a":1}'), { ok: true, args: { b: 2 }, confirm: false, positionals: [], flags: { typed: { b: "2" }, bare: [], inexact: [], unparsed: {}, written: { b: "2" } } });
  });

  it("names what is wrong", () => {
    const broken = parseArguments(["{owner:"]);
    assert.equal(broken.ok, false);
    assert.match(!broken.ok ? broken.message : "", /do not parse.*single quotes/);
    // Text that starts like JSON but is not JSON is a string: the tool's schema decides (flag-call.ts).
    const unparsed = parseArguments(["--x", "{bad"]);
    assert.deepEqual(unparsed.ok && unparsed.args, { x: "{bad" });
    assert.match(String(unparsed.ok && unparsed.flags?.unparsed.x), /JSON at position 1/, "why it does not parse is kept for the note");
    assert.match(JSON.stringify(parseArguments(["--a b"])), /not a valid --name/);
    assert.match(JSON.stringify(parseArguments(["{}", "{}"])), /more than one JSON object/);
    assert.match(JSON.stringify(parseArguments([], "[1]")), /stdin holds a JSON array/, "stdin that is not an object is refused");
    assert.match(JSON.stringify(parseArguments([], "garbage")), /stdin holds 'garbage', which is not JSON/);
    assert.equal(parseArguments(["--x", "1"], "garbage").ok, true, "with arguments on the line, stdin is not read");
    assert.match(JSON.stringify(parseArguments(["--s=a", "--s=b"])), /--s was given twice/);
    assert.deepEqual(typedValue("1e400"), { ok: true, value: "1e400" }, "a number a double cannot hold stays text");
    assert.deepEqual(typedValue("9007199254740993"), { ok: true, value: "9007199254740993" }, "an integer past 2^53 stays text");
    assert.deepEqual(typedValue("1.5e3"), { ok: true, value: 1500 });
    assert.deepEqual(typedValue("007"), { ok: true, value: "007" }, "a leading zero stays a string");
  });
});

describe("plugin command call and skill words: order", () => {
  const MISSING = "name the tool to call";
  const named = (words: string[], stdin = "") => parseNamedCall(words, stdin, "tool", MISSING);

  it("--confirm before the name or anywhere after it, flags before or after the JSON: one call", () => {
    const expected = { ok: true, name: "create_note", args: { title: "Plan", body: "b" }, confirm: true, flags: { typed: {}, bare: [], inexact: [], unparsed: {}, written: { title: "Plan" } } };
    const orders = [
      ["--confirm", "create_note", "--title", "Plan", '{"body":"b"}'],
      ["create_note", '{"body":"b"}', "--title", "Plan", "--confirm"],
      ["create_note", "--confirm", "--title", "Plan", '{"body":"b"}'],
      ["create_note", "--title=Plan", "--confirm", '{"body":"b"}'],
    ];
    for (const words of orders) assert.deepEqual(named(words), expected, words.join(" "));
    assert.deepEqual(named(["create_note"], '{"title":"Plan","body":"b"}'), { ok: true, name: "create_note", args: { title: "Plan", body: "b" }, confirm: false }, "JSON on stdin");
  });

  it("a flag or the JSON before the name, a stray word, a valued --confirm or no name: an error naming it", () => {
    const message = (words: string[]) => {
      const parsed = named(words);
      return parsed.ok ? `parsed as ${JSON.stringify(parsed)}` : parsed.message;
    };
    // Read in order, '--title Plan create_note' would call a tool named by a value: refused instead.
    assert.equal(message(["--title", "Plan", "create_note"]), "'--title' came before the tool name; name the tool first, then its arguments: TOOL --title …");
    assert.equal(message(['{"title":"Plan"}', "create_note"]), "the JSON arguments came before the tool name; name the tool first, then its arguments: TOOL '{…}'");
    assert.equal(message(["create_note", "Plan"]), "unexpected word 'Plan' after the tool name: pass arguments as one JSON object or as --name value");
    assert.match(message(["create_note", "--confirm=true"]), /^--confirm takes no value \(got '--confirm=true'\): write --confirm; a tool parameter named confirm goes in the JSON form/);
    assert.equal(message([]), MISSING);
    assert.equal(message(["--confirm"]), MISSING);
  });

  it("a leading --toolName X or --tool X names the tool, said in a note; any other flag there is still refused", () => {
    const expected = { ok: true, name: "get_note", args: { id: "n1" }, confirm: false, flags: { typed: {}, bare: [], inexact: [], unparsed: {}, written: { id: "n1" } } };
    for (const words of [
      ["--toolName", "get_note", "--id", "n1"],
      ["--tool", "get_note", "--id", "n1"],
      ["--toolName=get_note", "--id", "n1"],
    ]) {
      const parsed = parseNamedCall(words, "", "tool", MISSING, "notes call");
      assert.ok(parsed.ok, JSON.stringify(parsed));
      const { note, ...call } = parsed;
      assert.deepEqual(call, expected, words.join(" "));
      assert.match(note ?? "", /^--tool(Name)? get_note was read as the tool name; the usual form names it first, with no flag: `notes call get_note …`$/);
    }
    const confirmed = parseNamedCall(["--confirm", "--toolName", "create_note", "--title", "t"], "", "tool", MISSING);
    assert.deepEqual(confirmed.ok && [confirmed.name, confirmed.confirm, confirmed.args], ["create_note", true, { title: "t" }]);
    const skill = parseNamedCall(["--skill", "count"], "", "skill", MISSING);
    assert.deepEqual(skill.ok && [skill.name, skill.note], ["count", "--skill count was read as the skill name; the usual form names it first, with no flag: `skill count …`"]);
    // A name flag with no name after it, or the skill's flag for a tool, is refused as any flag before the name.
    for (const words of [["--toolName", "--id", "n1"], ["--skill", "count"], ["--toolName"]]) {
      const parsed = named(words);
      assert.equal(parsed.ok, false, words.join(" "));
      assert.match(parsed.ok ? "" : parsed.message, /came before the tool name/);
    }
  });

  it("--confirm counts once, and only where no flag waits for its value", () => {
    const message = (words: string[]) => {
      const parsed = named(words);
      return parsed.ok ? `parsed as ${JSON.stringify(parsed)}` : parsed.message;
    };
    // A flag given twice is refused; the gate is no exception, wherever the two stand.
    for (const words of [
      ["create_note", "--confirm", "--confirm"],
      ["--confirm", "--confirm", "create_note"],
      ["--confirm", "create_note", "--title", "Plan", "--confirm"],
    ]) {
      assert.equal(message(words), "--confirm was given twice: give it once", words.join(" "));
    }
    // `--note "$title"` with title="--confirm": the word may be --note's value, so it confirms nothing.
    const afterBare = message(["free_write", "--note", "--confirm"]);
    assert.match(afterBare, /^--confirm right after --note, which got no value, is refused: it may be --note's value/);
    assert.match(afterBare, /Write --note=VALUE for a value that starts with --/);
    assert.match(message(["free_write", "--draft", "--confirm", "--note", "x"]), /^--confirm right after --draft/);
    // After --help the word cannot be help's value to the reader: it is told --help runs nothing.
    assert.match(message(["free_write", "--help", "--confirm"]), /^--confirm with --help is refused: --help shows the parameters and runs nothing/);
    assert.deepEqual(named(["free_write", "--note=--confirm"]), { ok: true, name: "free_write", args: { note: "--confirm" }, confirm: false, flags: { typed: {}, bare: [], inexact: [], unparsed: {}, written: { note: "--confirm" } } }, "the = form carries the value");
    const after = named(["free_write", "--confirm", "--draft", "--note", "x"]);
    assert.deepEqual(after.ok && { args: after.args, confirm: after.confirm }, { args: { draft: true, note: "x" }, confirm: true }, "before the flags, or after a value, it is the gate");
    assert.equal(named(["free_write", "--draft=true", "--confirm"]).ok, true);
    assert.equal(message(["free_write", "--__proto__", "1"]), "--__proto__: '__proto__' cannot be an argument name (it is JavaScript's prototype key, not a tool parameter): leave it out, and give the tool's own parameters by name");
  });

  it("--limit is checked as the facade checks limit and passed on as given, or a usage error saying what it got", () => {
    assert.deepEqual(limitArgument({}), { ok: true });
    assert.deepEqual(limitArgument({ limit: 5 }), { ok: true, limit: 5 });
    // Passed on as given: the runtime repairs it and says so in `repairs`.
    assert.deepEqual(limitArgument({ limit: "5" }), { ok: true, limit: "5" });
    assert.deepEqual(limitArgument({ limit: 80 }), { ok: true, limit: 80 });
    assert.deepEqual(limitArgument({ limit: null }), { ok: true });
    const refused = (limit: unknown) => {
      const checked = limitArgument({ limit });
      return checked.ok ? "accepted" : checked.message;
    };
    assert.equal(refused(true), "--limit needs a whole number from 1 to 50, e.g. --limit 5 (got no value)");
    assert.equal(refused("ten"), '--limit needs a whole number from 1 to 50, e.g. --limit 5 (got the string "ten")');
    assert.equal(refused("2.5"), '--limit needs a whole number from 1 to 50, e.g. --limit 5 (got the string "2.5")');
    assert.equal(refused(0), "--limit needs a whole number from 1 to 50, e.g. --limit 5 (got 0)");
    assert.equal(refused(2.5), "--limit needs a whole number from 1 to 50, e.g. --limit 5 (got 2.5)");
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
