import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { closeSession, type Session } from "../src/runtime/session.js";
import { createTextLayer, type TextLayer, type TextLayerOptions } from "../src/text/text-layer.js";
import { CLI_FIXTURES, hostEnv } from "./fixtures/cli/helpers.js";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { isRunning, STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { startN8nFixture, type N8nFixture } from "./fixtures/text/n8n-mcp-server.js";
import { until } from "./wait.js";

// Answers are read field by field below; their shapes are asserted, not declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonObject = Record<string, any>;

/** The seed's text modules under commands/, each against a real fixture service. */

let runtime: Runtime;
const open: Array<{ session: Session }> = [];

before(async () => {
  runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
});
after(async () => {
  for (const { session } of open) await closeSession(session);
  await runtime.close();
});

function layerWith(env: NodeJS.ProcessEnv, options: TextLayerOptions = {}): { layer: TextLayer; session: Session; run: (command: string) => ReturnType<TextLayer["exec"]> } {
  const layer = createTextLayer(runtime, { env, timeoutMs: 20_000, ...options });
  const session = runtime.createSession();
  open.push({ session });
  return { layer, session, run: (command) => layer.exec(session, command) };
}

function json(stdout: string): JsonObject {
  return JSON.parse(stdout) as JsonObject;
}

describe("runtime-demo", () => {
  it("load commands/runtime-demo.mjs, then runtime-echo hello prints hello", async () => {
    const { run } = layerWith({});
    const loaded = await run("load commands/runtime-demo.mjs");
    assert.equal(loaded.exitCode, 0, loaded.stderr);
    assert.deepEqual((loaded.result as { commands: string[] }).commands, ["runtime-echo"]);
    const echoed = await run("runtime-echo hello");
    assert.equal(echoed.stdout, "hello\n");
    assert.equal((await run("echo piped | runtime-echo - | tr a-z A-Z")).stdout, "PIPED\n");
    const again = await run("load runtime-demo");
    assert.equal(again.exitCode, 0);
    assert.match(JSON.stringify(again.result), /already loaded/);
  });
});

describe("load refusals", () => {
  it("a path that leaves commands/ exits 7; a missing module or a broken contract exits 8", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-text-root-"));
    const commandsDir = path.join(root, "commands");
    mkdirSync(commandsDir);
    writeFileSync(path.join(root, "outside.mjs"), "export const name = 'outside'; export const description = ''; export const commands = []; export function setup() { return { commands: [] }; }\n");
    symlinkSync(path.join(root, "outside.mjs"), path.join(commandsDir, "sneaky.mjs"));
    writeFileSync(path.join(commandsDir, "no-setup.mjs"), "export const name = 'no-setup'; export const description = 'x'; export const commands = ['x'];\n");
    writeFileSync(path.join(commandsDir, "liar.mjs"), "export const name = 'liar'; export const description = 'x'; export const commands = ['a'];\nexport function setup(host) { return { commands: [{ name: 'b', summary: '', usage: 'b', run: async () => host.output.text('') }] }; }\n");
    writeFileSync(path.join(commandsDir, "clash.mjs"), "export const name = 'clash'; export const description = 'x'; export const commands = ['ls'];\nexport function setup(host) { return { commands: [{ name: 'ls', summary: '', usage: 'ls', run: async () => host.output.text('mine') }] }; }\n");
    const { run } = layerWith({}, { commandsDir });
    for (const spec of ["../outside.mjs", "commands/../outside.mjs", "/etc/passwd", path.join(root, "outside.mjs"), "commands/sneaky.mjs"]) {
      const answer = await run(`load ${spec}`);
      assert.equal(answer.exitCode, 7, `${spec}: ${answer.stderr}`);
      assert.equal(answer.ok, false);
      assert.match(answer.stderr, /outside the runtime's commands\/ folder/);
    }
    const missing = await run("load commands/nope");
    assert.equal(missing.exitCode, 8);
    assert.match(missing.stderr, /no module 'commands\/nope'.*available: .*commands\/clash\.mjs/);
    assert.match((await run("load no-setup")).stderr, /must export a 'setup\(host\)' function/);
    assert.match((await run("load liar")).stderr, /returned commands \[b\] but the module declares \[a\]/);
    const clash = await run("load clash");
    assert.equal(clash.exitCode, 8);
    assert.match(clash.stderr, /command 'ls' already exists/);
    assert.equal((await run("load")).exitCode, 2);
  });
});

describe("generic-mcp", () => {
  let server: HttpFixture;
  before(async () => {
    server = await startHttpFixture({ bearer: true });
    server.validAccess.add("generic-token-5521");
  });
  after(() => server.close());

  it("searches, describes and calls (only with --confirm) an MCP server that needs a bearer token", async () => {
    const { run } = layerWith({ AGENT_MCP_URL: server.url, AGENT_MCP_TOKEN: "generic-token-5521" });
    assert.equal((await run("load commands/generic-mcp")).exitCode, 0);
    const found = await run("mcp-search echo text | jq -r '.matches[0].name'");
    assert.equal(found.stdout, "echo\n", found.stderr);
    const described = json((await run("mcp-describe echo")).stdout);
    assert.deepEqual(described.tool.inputSchema.properties, { text: { type: "string" } });
    const refused = await run("mcp-call echo --text hi");
    assert.equal(refused.exitCode, 4);
    assert.match(refused.stderr, /needs --confirm|add --confirm/);
    assert.equal(json(refused.stdout).error.code, "CONFIRM_REQUIRED");
    const called = await run("mcp-call --confirm echo --text hi | jq -r .result");
    assert.equal(called.stdout, "hi\n", called.stderr);
    const unknown = await run("mcp-call --confirm ecko");
    assert.equal(unknown.exitCode, 2);
    // The message is said once, on stderr; the JSON on stdout keeps the code and the suggestions.
    assert.match(unknown.stderr, /did you mean 'echo'/);
    assert.deepEqual(json(unknown.stdout).error.details.suggestions, ["echo"]);
    // A flag read as a number or a JSON array is sent as its text where the schema wants a string (flag-call.ts).
    assert.equal((await run("mcp-call --confirm echo --text 5")).exitCode, 0);
    assert.equal((await run("mcp-call --confirm echo --text '[5]' | jq -c .result")).stdout, "[5]\n", "the tool got the text [5] (an array would echo as 5)");
    const invalid = await run("mcp-call --confirm echo --text");
    assert.equal(invalid.exitCode, 2, invalid.stderr);
    assert.match(invalid.stderr, /--text had no value/);
    assert.equal(json(invalid.stdout).error.code, "ARG_VALIDATION_FAILED");
    assert.doesNotMatch((await run("env; mcp-search")).stdout, /generic-token-5521/);
  });

  it("without AGENT_MCP_URL the commands answer NOT_CONFIGURED (exit 3), and a wrong token fails", async () => {
    const unset = layerWith({});
    await unset.run("load generic-mcp");
    const answer = await unset.run("mcp-search");
    assert.equal(answer.exitCode, 3, answer.stderr);
    assert.match(answer.stderr, /AGENT_MCP_URL/);
    const status = await unset.run("status");
    assert.match(JSON.stringify(status.result), /module 'generic-mcp': set AGENT_MCP_URL/);
    const wrong = layerWith({ AGENT_MCP_URL: server.url, AGENT_MCP_TOKEN: "not-the-token" });
    await wrong.run("load generic-mcp");
    const denied = await wrong.run("mcp-search");
    assert.notEqual(denied.exitCode, 0);
    assert.doesNotMatch(denied.stdout + denied.stderr, /not-the-token/);
  });
});

describe("n8n-mcp", () => {
  let n8n: N8nFixture;
  before(async () => {
    n8n = await startN8nFixture("n8n-token-7788");
  });
  after(() => n8n.close());

  it("derives the endpoint from N8N_INSTANCE_URL and reports auth status without the token", async () => {
    const { run } = layerWith({ N8N_INSTANCE_URL: `${n8n.instanceUrl}/`, N8N_MCP_TOKEN: "n8n-token-7788" });
    await run("load commands/n8n-mcp");
    const status = await run("n8n-auth-status");
    assert.equal(status.exitCode, 0, status.stderr);
    const report = json(status.stdout);
    assert.equal(report.url, n8n.mcpUrl);
    assert.equal(report.urlFrom, "N8N_INSTANCE_URL");
    assert.equal(report.authenticated, true);
    assert.equal(report.tools, 5);
    assert.doesNotMatch(status.stdout, /n8n-token-7788/);
  });

  it("read-only tools run without --confirm; others (even ones the server marks read-only) need it", async () => {
    const { run } = layerWith({ N8N_MCP_URL: n8n.mcpUrl, N8N_MCP_TOKEN: "n8n-token-7788" });
    await run("load n8n-mcp");
    const search = await run("n8n-search workflow | jq -r '.matches[].name' | sort");
    assert.match(search.stdout, /search_workflows/);
    const active = await run(`n8n-call search_workflows --query "" | jq -r '[.result.data[] | select(.active) | .id] | join(",")'`);
    assert.equal(active.stdout, "wf1,wf3\n", active.stderr);
    const before = n8n.calls.length;
    for (const line of ["n8n-call create_workflow_from_code --code 'x'", "n8n-call publish_workflow --workflowId wf2"]) {
      const refused = await run(line);
      assert.equal(refused.exitCode, 4, line);
      assert.match(refused.stderr, /add --confirm/);
    }
    assert.equal(n8n.calls.length, before, "a refused call never reaches n8n");
    const created = await run("n8n-call --confirm create_workflow_from_code --code 'x' | jq -r .result.id");
    assert.equal(created.stdout, "wf4\n");
    const described = json((await run("n8n-describe get_workflow_details")).stdout);
    assert.equal(described.confirm, false);
    assert.deepEqual(described.tool.inputSchema.required, ["workflowId"]);
  });

  it("a wrong token: auth status says not authenticated; nothing configured: exit 3", async () => {
    const wrong = layerWith({ N8N_MCP_URL: n8n.mcpUrl, N8N_MCP_TOKEN: "bad" });
    await wrong.run("load n8n-mcp");
    const status = await wrong.run("n8n-auth-status");
    assert.notEqual(status.exitCode, 0);
    assert.equal(json(status.stdout).authenticated, false);
    const none = layerWith({});
    await none.run("load n8n-mcp");
    const unset = await none.run("n8n-auth-status");
    assert.equal(unset.exitCode, 3);
    assert.equal((await none.run("n8n-search")).exitCode, 3);
    assert.match(JSON.stringify((await none.run("status")).result), /module 'n8n-mcp': set N8N_MCP_URL or N8N_INSTANCE_URL, N8N_MCP_TOKEN/);
  });
});

describe("rest-api", () => {
  let api: TestServer;
  before(async () => {
    api = await startServer((req, res) => {
      if (req.headers.authorization !== "Bearer rest-token-3141") return sendJson(res, 401, { error: "no" });
      if (req.method === "GET" && req.url === "/items") return sendJson(res, 200, { items: [{ id: 1, name: "a" }, { id: 2, name: "b" }, { id: 3, name: "c" }] });
      if (req.method === "POST" && req.url === "/items") return sendJson(res, 201, { created: JSON.parse(req.body) });
      return sendJson(res, 404, { error: "not found" });
    });
  });
  after(() => api.close());

  it("GET runs as it is, POST needs --confirm, the token stays on the host, PATH cannot leave the base URL", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url, AGENT_API_TOKEN: "rest-token-3141" });
    await run("load commands/rest-api");
    const names = await run("api-request GET /items | jq -r '.data.items | map(.name) | join(\" \")'");
    assert.equal(names.stdout, "a b c\n", names.stderr);
    assert.equal((await run("api-request GET /items | head -3")).stdout, '{\n  "ok": true,\n  "status": 200,\n', "a result of ordinary size is printed indented");
    const before = api.requests.length;
    const refused = await run(`api-request POST /items '{"name":"d"}'`);
    assert.equal(refused.exitCode, 4);
    assert.equal(api.requests.length, before);
    const created = await run(`echo '{"name":"d"}' | api-request --confirm POST /items | jq -c .`);
    assert.deepEqual(JSON.parse(created.stdout), { ok: true, status: 201, data: { created: { name: "d" } } });
    const missing = await run("api-request GET /nothing");
    assert.equal(missing.exitCode, 1);
    for (const escape of ["http://169.254.169.254/latest", "//evil.example/x"]) {
      const answer = await run(`api-request GET ${escape}`);
      assert.notEqual(answer.exitCode, 0, escape);
    }
    assert.equal(api.requests.some((r) => r.url.includes("latest") || r.url.includes("evil")), false);
  });

  it("an unquoted body, a split body, --confirm=true and an unknown option are each said with the fix; nothing is sent", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url, AGENT_API_TOKEN: "rest-token-3141" });
    await run("load commands/rest-api");
    const before = api.requests.length;
    const unquoted = await run(`api-request --confirm POST /items {"name":"d"}`);
    assert.equal(unquoted.exitCode, 2);
    assert.match(unquoted.stderr, /^api-request: the body is not JSON \(.*\); unquoted, the shell removed its double quotes: put the whole body in single quotes, e\.g\. api-request --confirm POST \/items '\{"name": "x"\}'/);
    const split = await run(`api-request --confirm POST /items {"name": "d"}`);
    assert.match(split.stderr, /^api-request: the JSON body came as 2 words \(the shell split it at its spaces\): put the whole body in single quotes/);
    const extra = await run(`api-request GET /items '{}' more`);
    assert.match(extra.stderr, /^api-request: unexpected word 'more' after the body: a request takes one METHOD, one PATH and at most one JSON body/);
    const typo = await run(`api-request --conrfim POST /items '{}'`);
    assert.match(typo.stderr, /^api-request: unknown option '--conrfim': api-request takes only --confirm/);
    const valued = await run(`api-request --confirm=true POST /items '{"name":"d"}'`);
    assert.equal(valued.exitCode, 2);
    assert.match(valued.stderr, /^api-request: --confirm takes no value \(got '--confirm=true'\): write --confirm/, "as on plugin command lines");
    assert.equal(api.requests.length, before, "nothing reached the API");
    const help = await run("api-request --help");
    assert.deepEqual([help.exitCode, help.stdout], [0, "usage: api-request [--confirm] METHOD PATH ['JSON']   (the JSON body in single quotes, or on stdin)\n"]);
  });
});

describe("rest-api bodies and an unreachable API", () => {
  let api: TestServer;
  const depth = 100_000;
  before(async () => {
    api = await startServer((req, res) => {
      if (req.url === "/deep") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(`${"[".repeat(depth)}${"]".repeat(depth)}`);
      }
      return sendJson(res, 200, { body: req.body, type: req.headers["content-type"] ?? null });
    });
  });
  after(() => api.close());

  it("a body that is a JSON string is sent as that JSON string, quoted, as any JSON value is", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url });
    await run("load commands/rest-api");
    for (const [body, sent] of [[`'"hello"'`, '"hello"'], ["'null'", "null"], ["'42'", "42"]]) {
      const answer = await run(`api-request --confirm POST /echo ${body} | jq -c .data`);
      assert.equal(answer.exitCode, 0, answer.stderr);
      assert.deepEqual(JSON.parse(answer.stdout), { body: sent, type: "application/json" }, body);
    }
  });

  it("GET and HEAD with a body, in the line or on stdin, are usage errors saying to use PATH's query; nothing is sent", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url });
    await run("load commands/rest-api");
    const before = api.requests.length;
    const piped = await run(`echo '{"a":1}' | api-request GET /echo`);
    assert.equal(piped.exitCode, 2);
    assert.match(piped.stderr, /^api-request: GET takes no body \(one came on stdin\), and nothing was sent: put the values in PATH's query, e\.g\. api-request GET '\/items\?page=2'/);
    const given = await run(`api-request HEAD /echo '{"a":1}'`);
    assert.equal(given.exitCode, 2);
    assert.match(given.stderr, /^api-request: HEAD takes no body, and nothing was sent/);
    assert.equal(api.requests.length, before, "nothing reached the API");
  });

  it("a JSON answer nested 100,000 levels deep is a text result, its JSON text, not a stack overflow", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url });
    await run("load commands/rest-api");
    const answer = await run("api-request GET /deep | jq -r '.data | type, length'");
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.equal(answer.stdout, `string\n${2 * depth}\n`);
  });

  it("a query in AGENT_API_BASE_URL: the hint's own example is not masked, the key is", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: `${api.url}/v1?access_key=SECRETQ12345` });
    await run("load commands/rest-api");
    const answer = await run("api-request GET /items");
    assert.equal(answer.exitCode, 3);
    const { error } = JSON.parse(answer.stdout) as { error: { code: string; hint: string } };
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.hint, /other query values go in each request's path \(e\.g\. '\/items\?page=2'\)/);
    assert.doesNotMatch(error.hint, /redacted/);
    assert.doesNotMatch(answer.stdout + answer.stderr, /SECRETQ12345/);
  });

  it("a base URL nothing answers at names its host and AGENT_API_BASE_URL, not the arguments", async () => {
    const closed = await startServer((_req, res) => sendJson(res, 200, {}));
    const url = closed.url;
    await closed.close();
    const { run } = layerWith({ AGENT_API_BASE_URL: url });
    await run("load commands/rest-api");
    const answer = await run("api-request GET /items");
    assert.equal(answer.exitCode, 1);
    const { error } = JSON.parse(answer.stdout) as { error: { code: string; hint: string; details: { host: string; code: string } } };
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.deepEqual(error.details, { host: new URL(url).host, code: "ECONNREFUSED" });
    assert.match(error.hint, /start the service, or check that AGENT_API_BASE_URL \(the base URL's variable, in the agent-tools server's environment\) names the right host and port/);
    assert.match(answer.stderr, /GET \/items failed: could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED: nothing answered there\)/);
  });
});

describe("rest-api with a large nested body", () => {
  let api: TestServer;
  // About 4.9 MB of nested JSON: under the sandbox's 5,000,000-character result cap, several
  // times that once indented.
  const items = 89_000;
  before(async () => {
    const body = JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ id: i, a: { b: { c: [1, 2, { d: "x" }] } }, tag: "t" })) });
    api = await startServer((_req, res) => sendJson(res, 200, JSON.parse(body)));
  });
  after(() => api.close());

  it("passes through jq and into a file whole, under the cap", async () => {
    const { run } = layerWith({ AGENT_API_BASE_URL: api.url });
    await run("load commands/rest-api");
    const counted = await run("api-request GET /deep | jq '.data.items|length'");
    assert.equal(counted.exitCode, 0, counted.stderr);
    assert.equal(counted.stdout, `${items}\n`);
    const saved = await run("api-request GET /deep > /tmp/f; echo rc=$?; jq '.data.items[-1].id' /tmp/f; wc -c < /tmp/f");
    const [rc, last, bytes] = saved.stdout.trim().split("\n");
    assert.equal(rc, "rc=0", saved.stderr);
    assert.equal(last, String(items - 1));
    assert.ok(Number(bytes) > 4_500_000 && Number(bytes) < 5_000_000, `printed compact: ${bytes} bytes`);
  });
});

describe("local-cli", () => {
  it("runs an allowlisted program only with --confirm; its output passes through", async () => {
    const env = hostEnv({ AGENT_CLI_ALLOWLIST: "print-args" });
    const { run } = layerWith(env);
    await run("load commands/local-cli");
    const refused = await run("cli-run print-args a");
    assert.equal(refused.exitCode, 4);
    assert.match(refused.stderr, /add --confirm/);
    const ran = await run("cli-run --confirm print-args 'two words' '$HOME' --confirm | wc -l");
    assert.equal(ran.stdout.trim(), "3", ran.stderr);
    const text = await run("cli-run --confirm print-args 'two words' '$(id)'");
    assert.equal(text.stdout, "[two words]\n[$(id)]\n");
    const denied = await run("cli-run --confirm argv-json x");
    assert.equal(denied.exitCode, 3);
    assert.match(denied.stderr, /not allowlisted.*AGENT_CLI_ALLOWLIST/);
    const valued = await run("cli-run --confirm=true print-args a");
    assert.equal(valued.exitCode, 2);
    assert.match(valued.stderr, /^cli-run: --confirm takes no value \(got '--confirm=true'\): write --confirm before PROGRAM/);
    const after = await run("cli-run print-args a --confirm");
    assert.equal(after.exitCode, 4);
    assert.match(after.stderr, /cli-run: the --confirm after print-args was passed to it as an argument; put --confirm before PROGRAM: cli-run --confirm print-args …/);
    const killed = layerWith(hostEnv({ AGENT_CLI_ALLOWLIST: "sh" }));
    await killed.run("load commands/local-cli");
    const segv = await killed.run(`cli-run --confirm sh -c 'kill -SEGV $$'; echo rc=$?`);
    assert.equal(segv.stdout, "rc=1\n");
    assert.match(segv.stderr, /^cli-run: sh was ended by signal SIGSEGV \(no exit code\)$/m);
    const help = await run("cli-run --help");
    assert.deepEqual([help.exitCode, help.stdout], [0, "usage: cli-run --confirm PROGRAM [ARGS…]   (stdin is passed to the program)\n"]);
    assert.ok(CLI_FIXTURES);
  });
});

describe("local-cli with binary stdout", () => {
  it("does not pass bytes that are not UTF-8 on as text: stdout is empty, stderr says why, the run fails", async () => {
    const { run } = layerWith(hostEnv({ AGENT_CLI_ALLOWLIST: "print-bytes" }));
    await run("load commands/local-cli");
    const piped = await run("cli-run --confirm print-bytes '\\000\\001\\377\\376\\200abc\\n' | od -c; echo rc=${PIPESTATUS[0]}");
    assert.equal(piped.stdout, "rc=1\n", "od read nothing, not corrupted bytes");
    assert.match(piped.stderr, /^cli-run: print-bytes wrote 9 bytes to stdout that are not UTF-8 text; they were not passed through .*Ask print-bytes for text: its base64 or hex output option/m);
    const failed = await run("cli-run --confirm print-bytes '\\377' 4");
    assert.deepEqual([failed.exitCode, failed.stdout], [4, ""], "the program's own failure keeps its exit code");
    const text = await run("cli-run --confirm print-bytes 'h\\303\\251llo \\342\\202\\254\\n' | od -c");
    assert.match(text.stdout, /h 303 251 {3}l {3}l {3}o {5}342 202 254 {2}\\n/, "UTF-8 text passes through byte for byte");
  });
});

describe("stdio-mcp", () => {
  it("starts the configured stdio server on first use and calls it with --confirm", async () => {
    const { run, session } = layerWith({
      PATH: process.env.PATH,
      AGENT_STDIO_MCP_COMMAND: process.execPath,
      AGENT_STDIO_MCP_ARGS: JSON.stringify([STDIO_FIXTURE]),
    });
    await run("load commands/stdio-mcp");
    const found = await run("stdio-mcp-search echo back | jq -r '.matches[0].name'");
    assert.equal(found.stdout, "echo\n", found.stderr);
    assert.equal((await run("stdio-mcp-describe echo | jq -r .tool.annotations.title")).stdout, "Echo\n");
    assert.equal((await run("stdio-mcp-call echo --text hey")).exitCode, 4);
    const echoed = await run("stdio-mcp-call --confirm echo --text hey | jq -r .result");
    assert.equal(echoed.stdout, "hey\n", echoed.stderr);
    const pid = Number(JSON.parse((await run("stdio-mcp-call --confirm pid")).stdout).result);
    assert.ok(pid > 0);
    await closeSession(session);
    // The session's end closed the module, and with it the server process.
    await until(() => !isRunning(pid), "the stdio server to stop with the session");
  });
});
