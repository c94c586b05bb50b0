import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { callJson, stdioForSuite, writePlugin } from "./helpers.js";

/**
 * A cli tool's `argv` may read the host's variables (`["--token", "${ARGV_TEST_TOKEN}"]`): through
 * the built server over stdio, a real program that prints what it was given shows that
 *  - the program gets the host's value, and no answer, error, log line or text-layer output
 *    carries it (the program prints each item's SHA-256 beside the item, so the test can tell
 *    the value arrived without the answer holding it);
 *  - a model's argument is passed as written, `${…}` and all, never resolved;
 *  - a reference is no placeholder: the model is not asked for the variable, and an argument of
 *    that name is refused;
 *  - `$${` is a literal `${`, a path from a variable not named like a credential stays readable,
 *    and an unset variable answers NOT_CONFIGURED naming it and the argv item.
 */

const TOKEN = "argv-token-Zq7Xk2Lm9Pw4Rt6Yb3";
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-argv-vars-"));
const folder = path.join(dir, "agent-tools-plugin-argvvars");
const DATA_DIR = path.join(dir, "data");

// Prints each argument with its SHA-256; `fail` as the first one prints them to stderr and exits 3.
const PROGRAM = `#!/usr/bin/env node
const args = process.argv.slice(2);
const seen = { argv: args, sha256: args.map((a) => require("node:crypto").createHash("sha256").update(a).digest("hex")) };
if (args[0] === "fail") { process.stderr.write("usage error, you gave: " + args.join(" ") + "\\n"); process.exit(3); }
process.stdout.write(JSON.stringify(seen));
`;

writePlugin(
  folder,
  {
    name: "argvvars",
    prefix: "argvvars",
    description: "A cli plugin whose argv reads host variables (tests only)",
    adapter: {
      kind: "cli",
      program: "./print-argv.cjs",
      allowlist: ["./print-argv.cjs"],
      tools: [
        { name: "show", argv: ["api", "--token", "${ARGV_TEST_TOKEN}", "--dir=${ARGV_TEST_DATA_DIR}", "$${literal}", "{q}"], parse: "json", readonly: true, optional: { header: ["--header", "X-Token: ${ARGV_TEST_TOKEN} {header}"] } },
        { name: "unset", argv: ["api", "${ARGV_TEST_UNSET}"], parse: "json", readonly: true },
        { name: "fail", argv: ["fail", "--token=${ARGV_TEST_TOKEN}"], readonly: true },
      ],
    },
  },
  { "print-argv.cjs": PROGRAM },
);
chmodSync(path.join(folder, "print-argv.cjs"), 0o755);

after(() => rmSync(dir, { recursive: true, force: true }));

interface Printed {
  argv: string[];
  sha256: string[];
}

describe("a cli tool's argv reads host variables; a model's argument is never read for them", () => {
  const server = stdioForSuite(dir, { ARGV_TEST_TOKEN: TOKEN, ARGV_TEST_DATA_DIR: DATA_DIR, AGENT_TOOLS_LOG: "debug" });

  it("the program gets the host's value, the answer shows it masked, and the model's ${…} is passed as written", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_argvvars_call", { toolName: "show", arguments: { q: "${ARGV_TEST_TOKEN}", header: "$${x}" } });
    assert.equal(isError, false, JSON.stringify(payload));
    const printed = (payload.result as { stdout: Printed }).stdout;
    assert.equal(printed.argv.length, 8, JSON.stringify(printed));
    assert.equal(printed.sha256[2], sha(TOKEN), "argv[2] is the host's ARGV_TEST_TOKEN");
    assert.equal(printed.argv[2], "[redacted]");
    assert.equal(printed.argv[3], `--dir=${DATA_DIR}`, "a path from a variable not named like a credential stays readable");
    assert.equal(printed.argv[4], "${literal}", "$${ is a literal ${");
    assert.equal(printed.argv[5], "${ARGV_TEST_TOKEN}", "the model's value is passed as written");
    assert.equal(printed.sha256[5], sha("${ARGV_TEST_TOKEN}"));
    assert.equal(printed.argv[6], "--header");
    assert.equal(printed.sha256[7], sha(`X-Token: ${TOKEN} $\${x}`), "an optional item's reference is resolved, its argument's text is not");
    assert.doesNotMatch(JSON.stringify(payload), new RegExp(TOKEN.slice(0, 12)));
  });

  it("a reference is no placeholder: the model is not asked for the variable, and an argument so named is refused", async () => {
    const { payload } = await callJson(server.client, "agent_tools_search", { query: "argvvars show", detail: true });
    const show = (payload.hits as { name: string; description: string; inputSchema: { properties: Record<string, unknown>; required: string[] } }[]).find((hit) => hit.name === "show");
    assert.ok(show, JSON.stringify(payload));
    assert.match(show.description, /--token \$\{ARGV_TEST_TOKEN\}/, "the description shows the reference");
    assert.deepEqual(Object.keys(show.inputSchema.properties), ["q", "header"], "no parameter is made of the variable");
    assert.deepEqual(show.inputSchema.required, ["q"]);
    const refused = await callJson(server.client, "agent_tools_argvvars_call", { toolName: "show", arguments: { q: "x", ARGV_TEST_TOKEN: "from the model" } });
    assert.equal(refused.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(refused.payload));
    assert.doesNotMatch(JSON.stringify(refused.payload), new RegExp(TOKEN.slice(0, 12)));
  });

  it("an unset variable answers NOT_CONFIGURED naming it and the argv item", async () => {
    const { payload } = await callJson(server.client, "agent_tools_argvvars_call", { toolName: "unset", arguments: {} });
    assert.equal(payload.error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /adapter\.tools\[1\]\.argv\[1\] needs \$ARGV_TEST_UNSET, which is not set on the host/);
  });

  it("a failed run's error, the text layer and the server's log never carry the value", async () => {
    const failed = await callJson(server.client, "agent_tools_argvvars_call", { toolName: "fail", arguments: {} });
    assert.equal(failed.payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(failed.payload));
    assert.match(JSON.stringify(failed.payload), /usage error, you gave: fail --token=\[redacted\]/);
    const text = await callJson(server.client, "agent_tools_exec", { command: "argvvars call show --q plain" });
    assert.equal(text.isError, false, JSON.stringify(text.payload));
    assert.match(JSON.stringify(text.payload), /\[redacted\]/, JSON.stringify(text.payload));
    for (const [where, seen] of [["the error", JSON.stringify(failed.payload)], ["the text layer", JSON.stringify(text.payload)], ["the server's stderr", server.stderr()]] as const) {
      assert.doesNotMatch(seen, new RegExp(TOKEN.slice(0, 12)), `${where} holds the host's value`);
    }
  });
});
