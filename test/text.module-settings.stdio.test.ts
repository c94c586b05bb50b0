import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * A module's (or an mcpServers entry's) address set wrong is said in the words of where it was
 * set: the variable of the module, the entry's field in the config file. The built server over
 * stdio with the SDK client; a local HTTP server that answers, but not as MCP.
 */

interface Answer {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function exec(server: Connected, command: string): Promise<Answer> {
  return (await callJson(server.client, "agent_tools_exec", { command })).payload as unknown as Answer;
}

describe("an address that answers, but not as an MCP server", () => {
  let web: Server;
  let url = "";
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-not-mcp-"));
  before(async () => {
    web = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url?.startsWith("/page")) {
          res.writeHead(200, { "content-type": "text/html" });
          res.end("<!doctype html><title>Welcome</title><p>hello</p>");
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "up", path: req.url }));
      });
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => web.close(() => resolve())));

  it("generic-mcp: says the URL did not answer as MCP, what it answered, and names AGENT_MCP_URL; no schema dump", { timeout: 60_000 }, async () => {
    const server = await connect(undefined, { AGENT_MCP_URL: `${url}/api/health`, AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
    try {
      assert.equal((await exec(server, "load generic-mcp")).exitCode, 0);
      const search = await exec(server, "mcp-search");
      assert.equal(search.exitCode, 1, search.stderr);
      assert.match(search.stderr, /did not answer as an MCP server during tools\/list: its URL answered the protocol's first request with JSON that is not a JSON-RPC message; check AGENT_MCP_URL in the server's environment/);
      assert.match(search.stdout, /"hint": "Set AGENT_MCP_URL in the server's environment to the server's MCP endpoint/);
      assert.doesNotMatch(search.stdout + search.stderr, /invalid_union|invalid_value|"path": \[/, "the SDK's Zod report is not passed on");
    } finally {
      await server.close();
    }
  });

  it("n8n-mcp: a web page at N8N_MCP_URL is said so, naming N8N_MCP_URL", { timeout: 60_000 }, async () => {
    const server = await connect(undefined, { N8N_MCP_URL: `${url}/page`, N8N_MCP_TOKEN: "n8n-token-5150", AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
    try {
      assert.equal((await exec(server, "load n8n-mcp")).exitCode, 0);
      const search = await exec(server, "n8n-search");
      assert.equal(search.exitCode, 1, search.stderr);
      assert.match(search.stderr, /did not answer as an MCP server .*with a text\/html body, where an MCP server answers JSON or an event stream; check N8N_MCP_URL in the server's environment/);
      assert.doesNotMatch(search.stdout + search.stderr, /AGENT_MCP_URL|n8n-token-5150/);
    } finally {
      await server.close();
    }
  });

  it("an mcpServers entry: the same words, naming the entry's url in the config file", { timeout: 60_000 }, async () => {
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { web: { url: `${url}/api` } } }));
    mkdirSync(path.join(dir, "no-plugins"), { recursive: true });
    const server = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config });
    try {
      const discover = await callJson(server.client, "agent_tools_web_discover", {});
      const text = JSON.stringify(discover.payload);
      assert.match(text, /did not answer as an MCP server/, text);
      assert.match(text, /JSON that is not a JSON-RPC message; check `mcpServers\.web\.url` in /);
      assert.doesNotMatch(text, /invalid_union/);
    } finally {
      await server.close();
    }
  });
});

describe("rest-api: a user and password in AGENT_API_BASE_URL", () => {
  it("is refused naming AGENT_API_BASE_URL and AGENT_API_TOKEN, not a plugin.json; the password is not shown", { timeout: 60_000 }, async () => {
    const server = await connect(undefined, { AGENT_API_BASE_URL: "http://ana:pw-7c1f9e@127.0.0.1:9/api", AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
    try {
      assert.equal((await exec(server, "load rest-api")).exitCode, 0);
      const request = await exec(server, "api-request GET /items");
      assert.equal(request.exitCode, 3, request.stderr);
      const error = (JSON.parse(request.stdout) as { error: { code: string; message?: string; hint: string } }).error;
      assert.equal(error.code, "NOT_CONFIGURED");
      // The message is on stderr only (said once); the JSON keeps the code and the hint.
      assert.equal(error.message, undefined);
      assert.match(request.stderr, /^api-request: NOT_CONFIGURED: .*AGENT_API_BASE_URL must not contain a user or password/);
      assert.match(error.hint, /^Set AGENT_API_BASE_URL in the server's environment to scheme, host and path only, without the user and password; to authenticate, set AGENT_API_TOKEN \(sent as a bearer token\), then restart the server\.$/);
      assert.doesNotMatch(request.stdout + request.stderr, /plugin\.json|adapter\.baseUrl|pw-7c1f9e/);
    } finally {
      await server.close();
    }
  });
});
