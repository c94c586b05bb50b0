import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { callJson, stdioForSuite, writePlugin } from "./helpers.js";

/**
 * What plugin code returns and logs, over stdio with the built server. A result is what
 * JSON.stringify makes of it, credentials masked: a Date is its ISO text (not `{}`), a URL its
 * href, an object with a toJSON what that returns, a class instance or a Map its own fields. And
 * the lines a plugin prints (its adapter's `options.log`, a skill's `context.log`, console.log)
 * reach stderr masked like its results.
 */

const KEY = "sk-live-VALUESECRET-0123456789";
const dir = mkdtempSync(path.join(tmpdir(), "redaction-values-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// The values every way of returning them gives back (a tool, a skill, a job), and what
// JSON.stringify makes of them with the credential masked.
const VALUES = `
class Owner { constructor() { this.name = "o"; this.key = process.env.VALS_API_KEY; } get hidden() { return "not a field"; } }
class Token { constructor(value) { this.value = value; } toJSON(key) { return { kind: "token", at: key, value: this.value, when: new Date(0) }; } }
export const values = () => ({
  at: new Date(0),
  url: new URL(\`https://api.test/\${process.env.VALS_API_KEY}/items\`),
  bytes: Buffer.from("hi"),
  sizes: new Map([[1, 2]]),
  owner: new Owner(),
  token: new Token(process.env.VALS_API_KEY),
  inline: { toJSON: () => \`inline \${process.env.VALS_API_KEY}\` },
  list: [new Date(86400000), new String("boxed"), new Number(7)],
  // A toJSON JSON.stringify calls though listing the fields does not show it: not enumerable, or
  // on a prototype object.
  hiddenToJSON: Object.defineProperty({ a: 1 }, "toJSON", { value: () => ({ leaked: process.env.VALS_API_KEY }) }),
  inheritedToJSON: Object.create({ toJSON: () => \`inherited \${process.env.VALS_API_KEY}\` }),
  // What a toJSON returns is not handed to its own toJSON: JSON leaves that one uncalled.
  nestedToJSON: { toJSON: () => Object.assign([1], { toJSON: () => process.env.VALS_API_KEY }) },
});
`;
const MASKED = {
  at: "1970-01-01T00:00:00.000Z",
  url: "https://api.test/[redacted]/items",
  // Bytes are described, never written (binary-value.ts): JSON would give them as numbers.
  bytes: { binary: true, contentType: null, bytes: 2, hint: "The plugin's code answered raw bytes (a Buffer), which are not passed on. If they are text, the plugin should decode them (or send base64) before answering." },
  sizes: {},
  owner: { name: "o", key: "[redacted]" },
  token: { kind: "token", at: "token", value: "[redacted]", when: "1970-01-01T00:00:00.000Z" },
  inline: "inline [redacted]",
  list: ["1970-01-02T00:00:00.000Z", "boxed", 7],
  hiddenToJSON: { leaked: "[redacted]" },
  inheritedToJSON: "inherited [redacted]",
  nestedToJSON: [1],
};

writePlugin(
  path.join(dir, "agent-tools-plugin-vals"),
  { name: "vals", prefix: "vals", adapter: "./adapter.mjs", readonlyTools: ["values"], requires: { env: ["VALS_API_KEY"] } },
  {
    "values.mjs": VALUES,
    "adapter.mjs": `import { values } from "./values.mjs";
export default function createAdapter(options) {
  options.log.info(\`adapter sees \${options.env.VALS_API_KEY}\`);
  return {
    async listTools() { return { tools: [{ name: "values", description: "Returns values JSON turns into text.", inputSchema: { type: "object" } }] }; },
    async call(name) {
      options.log.warn("adapter call", { key: options.env.VALS_API_KEY });
      return values();
    },
  };
}
`,
    "skills/values.mjs": `import { values } from "../values.mjs";
export const meta = { description: "Returns values JSON turns into text." };
export async function run() { return values(); }
`,
    "skills/start.mjs": `import { values } from "../values.mjs";
export const meta = { description: "Starts a job that returns values JSON turns into text." };
export async function run(adapter, args, context) { return { id: await context.jobs.start(async () => values(), { kind: "values" }) }; }
`,
    "skills/status.mjs": `export const meta = { description: "A job's status.", args: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } };
export async function run(adapter, args, context) { return await context.jobs.status(args.id); }
`,
    "skills/noisy.mjs": `export const meta = { description: "Logs the credential every way plugin code can." };
export async function run(adapter, args, context) {
  context.log.info(\`context log has \${process.env.VALS_API_KEY}\`);
  context.log.error("context fields", { nested: { key: process.env.VALS_API_KEY } });
  console.log(\`console has \${process.env.VALS_API_KEY}\`);
  process.stdout.write(\`stdout write has \${process.env.VALS_API_KEY}\\n\`);
  // One credential in two writes: masked in the line they make together.
  process.stdout.write(\`split write has \${process.env.VALS_API_KEY.slice(0, 10)}\`);
  process.stdout.write(\`\${process.env.VALS_API_KEY.slice(10)} in two\\n\`);
  return { logged: true };
}
`,
  },
);

describe("plugin results are what JSON makes of them, masked", () => {
  const server = stdioForSuite(dir, { VALS_API_KEY: KEY });

  it("a module adapter's tool result", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_vals_call", { toolName: "values", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, MASKED);
  });

  it("a skill's result", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_vals_run_skill", { skill: "values", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, MASKED);
  });

  it("a job's result", async () => {
    const started = await callJson(server.client, "agent_tools_vals_run_skill", { skill: "start", arguments: {} });
    const id = (started.payload.result as { id: string }).id;
    const deadline = Date.now() + 30_000;
    let status: { state?: string; result?: unknown } = {};
    while (Date.now() < deadline) {
      status = (await callJson(server.client, "agent_tools_vals_run_skill", { skill: "status", arguments: { id } })).payload.result as typeof status;
      if (status.state !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(status.state, "succeeded", JSON.stringify(status));
    assert.deepEqual(status.result, MASKED);
  });

  it("the lines plugin code logs or prints reach stderr masked", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_vals_run_skill", { skill: "noisy", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    await callJson(server.client, "agent_tools_vals_call", { toolName: "values", arguments: {} });
    const stderr = server.stderr();
    for (const line of ["adapter sees [redacted]", 'adapter call {"key":"[redacted]"}', "context log has [redacted]", 'context fields {"nested":{"key":"[redacted]"}}', "console has [redacted]", "stdout write has [redacted]", "split write has [redacted] in two"]) {
      assert.ok(stderr.includes(line), `'${line}' on stderr:\n${stderr}`);
    }
    assert.ok(!stderr.includes(KEY), `the credential reached stderr:\n${stderr}`);
    assert.ok(!stderr.includes(KEY.slice(10)), `the credential's end reached stderr:\n${stderr}`);
  });
});
