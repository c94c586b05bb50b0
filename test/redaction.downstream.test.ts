import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StderrTail } from "../src/adapters/mcp/stderr-tail.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { parseConfig } from "../src/config/config.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { connectStdioV1, ROOT, writePlugin } from "./helpers.js";
import { connectStdioV2, v2Client } from "./v2-helpers.js";
import { progressFields, tapProgress } from "./wire-progress.js";

/**
 * What a downstream MCP server says besides its results is masked like them: a careless server
 * that says its own credential in a progress message, a question for the user (form or URL), a
 * request for the client's model (both eras of the agent's client: 2025, real requests mid-call;
 * 2026-07-28, input_required rounds), or in what it says of itself (its tools' descriptions and
 * schemas, its title and instructions: search, discover, describe, help) must not hand it to the
 * agent's client. Each of these once did: only results, errors and log messages were masked.
 */

const SECRET = "tk-teller-9f3a77c1e2";
const TELLER = path.join(ROOT, "test", "fixtures", "v2", "secret-teller.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "redaction-relays-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-tl"), {
  name: "tl",
  prefix: "tl",
  description: "A downstream that says its credential mid-call.",
  adapter: { kind: "mcp", command: process.execPath, args: [TELLER], env: { TELLER_TOKEN: "${HOST_TELLER_TOKEN}" }, timeoutMs: 30_000 },
});
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, HOST_TELLER_TOKEN: SECRET };
const call = (toolName: string) => ({ name: "agent_tools_tl_call", arguments: { toolName, arguments: {} } });
const TOOLS = ["tell_progress", "tell_question", "tell_url", "tell_sampling"];

/** Everything the agent's client was sent, as JSON. */
function recorder(): { seen: string[]; all: () => string } {
  const seen: string[] = [];
  return { seen, all: () => seen.join("\n") };
}

describe("a downstream's mid-call messages reach the agent's client masked", () => {
  it("a 2025-era client: progress, form and URL questions, sampling requests", async () => {
    const { seen, all } = recorder();
    const client = new V1Client({ name: "relay-redaction", version: "0" }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => (seen.push(JSON.stringify(request.params)), { action: "decline" as const }));
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => (seen.push(JSON.stringify(request.params)), { role: "assistant" as const, content: { type: "text" as const, text: "ok" }, model: "m" }));
    await connectStdioV1(client, env);
    // Progress as read off the wire (wire-progress.ts): onprogress can lose a step read with the answer.
    tapProgress(client.transport, (p) => void seen.push(JSON.stringify(progressFields(p))));
    try {
      for (const tool of TOOLS) {
        const result = await client.callTool(call(tool), undefined, { onprogress: () => undefined, timeout: 30_000 });
        seen.push(JSON.stringify(result));
      }
    } finally {
      await client.close();
    }
    assert.ok(all().includes("[redacted]"), all());
    assert.ok(!all().includes(SECRET), `the credential reached the client:\n${all()}`);
    assert.equal(seen.filter((s) => s.includes("[redacted]")).length >= 4, true, all());
  });

  it("a 2026-07-28 client: the same, as input_required rounds", async () => {
    const { seen, all } = recorder();
    const client = v2Client("pin", { elicitation: { form: {}, url: {} }, sampling: {} });
    client.setRequestHandler("elicitation/create", async (request) => (seen.push(JSON.stringify(request.params)), { action: "decline" as const }));
    client.setRequestHandler("sampling/createMessage", async (request) => (seen.push(JSON.stringify(request.params)), { role: "assistant" as const, content: { type: "text" as const, text: "ok" }, model: "m" }));
    await connectStdioV2(client, env);
    tapProgress(client.transport, (p) => void seen.push(JSON.stringify(progressFields(p))));
    try {
      for (const tool of TOOLS) {
        const result = await client.callTool(call(tool), { onprogress: () => undefined, timeout: 30_000 });
        seen.push(JSON.stringify(result));
      }
    } finally {
      await client.close();
    }
    assert.ok(all().includes("[redacted]"), all());
    assert.ok(!all().includes(SECRET), `the credential reached the client:\n${all()}`);
  });
});

describe("what a downstream says of itself reaches the agent masked", () => {
  it("tool titles, descriptions and schemas, the server's title, description and instructions", async () => {
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), { mcpServers: { tl: { command: process.execPath, args: [TELLER], env: { TELLER_TOKEN: SECRET } } } });
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "", AGENT_TOOLS_SEMANTIC: "off" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-catalog");
    try {
      const answers = {
        discover: await runtime.discover(session, "tl", {}),
        search: await runtime.search(session, { query: "credential teller" }),
        describe: await runtime.describe(session, "tl", "tell_progress"),
        help: runtime.help(undefined, session),
        pluginHelp: runtime.help("tl", session),
      };
      for (const [what, answer] of Object.entries(answers)) {
        const json = JSON.stringify(answer);
        assert.ok(!json.includes(SECRET), `${what} carried the credential: ${json}`);
      }
      assert.ok(JSON.stringify(answers.discover).includes("[redacted]"), JSON.stringify(answers.discover));
      const called = await runtime.call(session, "tl", { toolName: "tell_progress", arguments: {} });
      assert.equal(called.isError, false, "the tool is still called by its own name");
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  });
});

describe("a downstream's stderr lines cut at their length limit", () => {
  it("keep no part of a credential the cut went through", () => {
    const redactor = createRedactor([SECRET]);
    for (let inside = 4; inside < SECRET.length; inside++) {
      // A finished line cut at 2,000 characters, `inside` of them the credential's first ones.
      const finished = new StderrTail(40, 2_000, (text) => redactor.redact(text));
      finished.push(`${"x".repeat(2_000 - inside)}${SECRET} and more\n`);
      // An unfinished line keeps its last 2,000 characters, `inside` of them the credential's last ones.
      const unfinished = new StderrTail(40, 2_000, (text) => redactor.redact(text));
      unfinished.push(`${SECRET}${"y".repeat(2_000 - inside)}`);
      for (const text of [finished.text(), unfinished.text()]) {
        assert.ok(!text.includes(SECRET.slice(0, inside)) && !text.includes(SECRET.slice(-inside)), `${inside} characters of the credential: ${text.slice(1_990)}`);
      }
    }
  });
});

describe("credentials written literally in an entry's args", () => {
  it("are masked when the server repeats its command line (--api-key VALUE, --token=VALUE, a header argument)", async () => {
    const literals = ["lit-arg-secret-1234", "lit-eq-secret-5678", "lit-header-secret-9012", "lit-pw-secret-3456"];
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), {
      mcpServers: {
        echoargs: {
          command: "sh",
          args: ["-c", 'echo "started with: $*" >&2; exit 1', "sh", "--api-key", literals[0], `--token=${literals[1]}`, "--header", `Authorization: Bearer ${literals[2]}`, "--db-password", literals[3], "--verbose", "--name", "plain-value", "--auth-type", "bearer"],
        },
      },
    });
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "", AGENT_TOOLS_SEMANTIC: "off" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-args");
    try {
      const json = JSON.stringify(await runtime.discover(session, "echoargs", {}));
      assert.match(json, /started with/, "the server's stderr is quoted");
      for (const literal of literals) assert.ok(!json.includes(literal), `${literal} shown: ${json}`);
      assert.ok(json.includes("plain-value"), "an option whose name says nothing secret is left alone");
      assert.ok(json.includes("--auth-type bearer"), "a word that could not be a credential is left alone");
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  });
});

describe("credentials written inside an entry's literal args and env values", () => {
  it("are masked when the server repeats them: a connection URL's password, a connection string's Password=, a webhook's path", async () => {
    const literals = ["Pgs3cretPassw0rd", "pgpassw0rd", "connStrPass42", "odbcPwd-77", "XXXXXXXXsecretpath"];
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), {
      mcpServers: {
        echoall: {
          command: "sh",
          args: ["-c", 'echo "started with: $* env: $CONN_STRING $ODBC $SLACK_WEBHOOK" >&2; exit 1', "sh", `postgresql://dbuser:${literals[0]}@db.internal:5432/app`, `--db-url=postgres://u:${literals[1]}@h/db`, "--name", "https://plain.example.com/path"],
          env: { CONN_STRING: `Server=x;Password=${literals[2]};`, ODBC: `Driver={x};Uid=me;PWD={${literals[3]}}`, SLACK_WEBHOOK: `https://hooks.slack.com/services/T000/B000/${literals[4]}` },
        },
      },
    });
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "", AGENT_TOOLS_SEMANTIC: "off" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-embedded");
    try {
      const json = JSON.stringify(await runtime.discover(session, "echoall", {}));
      assert.match(json, /started with/, "the server's stderr is quoted");
      for (const literal of literals) assert.ok(!json.includes(literal), `${literal} shown: ${json}`);
      assert.ok(json.includes("postgresql://dbuser:[redacted]@db.internal:5432/app"), `the address stays readable: ${json}`);
      assert.ok(json.includes("Server=x;Password=[redacted];") && json.includes("https://plain.example.com/path") && json.includes("hooks.slack.com/services/[redacted]"), json);
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  });
});

describe("credentials written literally in a CLI tool's argv", () => {
  it("are masked when the program prints its arguments", async () => {
    const cliDir = path.join(dir, "cli-plugins");
    writePlugin(path.join(cliDir, "agent-tools-plugin-pa"), {
      name: "pa",
      prefix: "pa",
      description: "Prints its arguments.",
      adapter: { kind: "cli", program: "print-args", allowlist: ["print-args"], tools: [{ name: "show", argv: ["--api-key", "lit-cli-secret-7731", "{word}"], parse: "text", readonly: true }] },
    });
    const runtime = await createRuntime({ pluginDirs: [path.join(cliDir, "agent-tools-plugin-pa")], env: { PATH: [path.join(ROOT, "test", "fixtures", "cli"), "/usr/bin", "/bin"].join(path.delimiter) }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-cli-args");
    try {
      assert.deepEqual(runtime.failures, []);
      const json = JSON.stringify(await runtime.call(session, "pa", { toolName: "show", arguments: { word: "hello" } }));
      assert.match(json, /hello/, json);
      assert.ok(!json.includes("lit-cli-secret-7731") && json.includes("[redacted]"), json);
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  });
});
