import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { oneLine, oneLineReason } from "../src/runtime/one-line.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createSession } from "../src/runtime/session.js";
import { writePlugin } from "./helpers.js";

/**
 * Descriptions in answers are one line, by one rule (runtime/one-line.ts): the first sentence
 * when it says enough on its own, else what follows too, cut at 160 characters. UNKNOWN_SKILL's
 * list of skills follows it like discover does (it had lost the first-sentence part).
 */

const LONG_FIRST = "Sum the open invoices of one customer, with their credit notes.";
const SKILLS = {
  "open-total": `${LONG_FIRST} Slow on large accounts;\n  prefer 'summary' there.`,
  summary: "Lists all. Every invoice of the month with its lines and totals.",
};

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-one-line-"));
const plugin = writePlugin(
  path.join(dir, "agent-tools-plugin-books"),
  { name: "books", prefix: "books", description: "Invoices and credit notes.", adapter: { kind: "rest", baseUrl: "http://127.0.0.1:9", tools: [{ name: "list_invoices", path: "/invoices" }] }, skills: "skills" },
  Object.fromEntries(Object.entries(SKILLS).map(([name, description]) => [`skills/${name}.mjs`, `export const meta = { description: ${JSON.stringify(description)} };\nexport async function run() { return {}; }\n`])),
);

describe("one-line descriptions", () => {
  let runtime: Runtime;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [plugin], env: {}, log: silentLogger });
  });
  after(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("UNKNOWN_SKILL lists each skill by its first sentence, or the whole line when that sentence is short", async () => {
    const answer = await runtime.runSkill(createSession(), "books", { skill: "open-totl", arguments: {} });
    assert.equal(answer.isError, true);
    const error = (answer.payload as unknown as { error: { code: string; details: { skills: { name: string; description: string }[] } } }).error;
    assert.equal(error.code, "UNKNOWN_SKILL");
    const described = Object.fromEntries(error.details.skills.map((s) => [s.name, s.description]));
    assert.deepEqual(described, { "open-total": LONG_FIRST, summary: SKILLS.summary });
  });

  it("the rule itself: whitespace flattened, cut at the limit with an ellipsis", () => {
    assert.equal(oneLine(undefined), "");
    assert.equal(oneLine("  Lists\n notes.  "), "Lists notes.");
    assert.equal(oneLine(SKILLS["open-total"]), LONG_FIRST);
    const long = `${"word ".repeat(60)}end`;
    const cut = oneLine(long, 50);
    assert.equal(cut.length, 49 + 1);
    assert.ok(cut.endsWith("…"));
  });

  it("an error with a server's stderr tail: the adapter's own line and the stderr line that names the error", () => {
    const trace = [
      "MCP server 'down' exited with code 1 before it finished starting (Connection closed); its last stderr lines:",
      "node:internal/modules/cjs/loader:1210",
      "  throw err;",
      "  ^",
      "",
      "Error: Cannot find module '/x/y.js'",
      "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)",
      "  code: 'MODULE_NOT_FOUND',",
      "}",
      "",
      "Node.js v20.20.2",
    ].join("\n");
    assert.equal(oneLineReason(trace), "MCP server 'down' exited with code 1 before it finished starting (Connection closed): Cannot find module '/x/y.js'");
    // No line that names an error: the last one that is not Node's banner.
    assert.equal(oneLineReason("server 'a' failed during tools/list; its last stderr lines:\nstarting\nport 8080 in use\nNode.js v22.1.0"), "server 'a' failed during tools/list: port 8080 in use");
    assert.equal(oneLineReason("plain\nsecond line"), "plain");
    assert.equal(oneLineReason(`x: ${"y".repeat(300)}`).length, 160);
  });
});
