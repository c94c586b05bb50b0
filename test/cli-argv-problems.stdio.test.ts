import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { baseEnv, callJson, connect, runCli, writePlugin } from "./helpers.js";

// A cli tool whose argv template has several problems reported the first only: fix it, validate
// again, meet the next. Now every problem of the template is reported at once, each at the item
// it is about, in `agent-tools validate` (the CLI binary) and in help's problems.

const PATH = [CLI_FIXTURES, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter);

let dir: string;
let plugins: string;
let file: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "agent-tools-argv-problems-"));
  plugins = path.join(dir, "plugins");
  const folder = writePlugin(path.join(plugins, "agent-tools-plugin-argvbad"), {
    name: "argvbad",
    prefix: "argvbad",
    description: "a cli plugin whose argv templates have several problems (tests only)",
    adapter: {
      kind: "cli",
      program: "argv-json",
      allowlist: ["argv-json"],
      tools: [
        {
          name: "many",
          argv: ["{a...}{b...}", "x\0y", "{c}", "{c...}"],
          optional: { c: ["--c", "{c}"], d: ["--d", "{zz}"], e: ["--e", "{c...}"] },
        },
        { name: "two", argv: ["{p}", "{q...}{r...}"], optional: { p: ["--p"] } },
        { name: "fine", argv: ["hello"], readonly: true },
      ],
    },
  });
  file = path.join(folder, "plugin.json");
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Each problem of the tools above, as `field 'F' message`. */
const EXPECTED = [
  "field 'adapter.tools[0].argv[0]' '{a...}{b...}' has more than one {name...} placeholder",
  "field 'adapter.tools[0].argv[1]' holds a NUL byte",
  "field 'adapter.tools[0].argv[3]' '{c...}' uses 'c' both as {c} and {c...}",
  "field 'adapter.tools[0].optional.c' 'c' is also a placeholder of argv, where it is required",
  "field 'adapter.tools[0].optional.d' uses {zz}, which is neither 'd' nor a placeholder of argv",
  "field 'adapter.tools[0].optional.e' spreads {c...}, but a group may only spread its own argument 'e'",
  "field 'adapter.tools[1].argv[1]' '{q...}{r...}' has more than one {name...} placeholder",
  "field 'adapter.tools[1].optional.p' 'p' is also a placeholder of argv, where it is required",
];

describe("a cli tool's argv template with several problems", () => {
  it("agent-tools validate reports every one at once, each at its item's line and column", async () => {
    const run = await runCli(["validate", "--plugins-dir", plugins], baseEnv({ PATH }));
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    const problems = report.problems.flatMap((p) => p.split("\n"));
    assert.equal(problems.length, EXPECTED.length, problems.join("\n"));
    EXPECTED.forEach((expected, i) => {
      const problem = problems[i] ?? "";
      assert.ok(problem.startsWith(`${file}:1:`), problem);
      assert.equal(problem.replace(/^.*?:1:\d+: /, ""), expected);
    });
    // Each at its own place in the file: no two problems point at the same column.
    const columns = problems.map((p) => /:1:(\d+): /.exec(p)?.[1]);
    assert.equal(new Set(columns).size, problems.length, columns.join(","));
  });

  it("help's problems over stdio name each of them", async () => {
    const server = await connect(plugins, { PATH });
    try {
      const help = await callJson(server.client, "agent_tools_help", {});
      const text = JSON.stringify(help.payload.problems ?? []);
      for (const expected of EXPECTED) {
        const [, field, message] = /^field '([^']+)' (.*)$/.exec(expected) ?? [];
        assert.ok(text.includes(field!) && text.includes(JSON.stringify(message).slice(1, -1)), `${expected}\n${text}`);
      }
    } finally {
      await server.close();
    }
  });
});
