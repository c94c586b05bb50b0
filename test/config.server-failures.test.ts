import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { SECRET_NAME } from "../src/adapters/shared/secret-name.js";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * mcpServers entries that cannot start or be reached, and credentials named *PASS / *PWD, through
 * the built server over stdio: each error names its cause (the exit code and the server's last
 * stderr lines, ECONNREFUSED) and a hint with the fix, naming the entry's setting in the config
 * file; values of DBPASS, DB_PASS (from an envFile) and X-Db-Pass are masked like API_TOKEN's.
 */

const DB_PASS = "hunter2hunter2xyz";
const FILE_PASS = "envfile-pass-778899";
const HEADER_PASS = "header-pass-445566";

/** A port nothing listens on: one the system handed out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("mcpServers entries that fail, over stdio", () => {
  let http: HttpFixture;
  let server: Connected;
  let configFile: string;
  before(async () => {
    http = await startHttpFixture();
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-server-failures-"));
    const script = path.join(dir, "server.sh");
    writeFileSync(script, "#!/bin/sh\nexit 0\n");
    chmodSync(script, 0o644);
    writeFileSync(path.join(dir, "db.env"), `export DB_PASS=${FILE_PASS}\n`);
    const exits = (code: string) => ({ command: process.execPath, args: ["-e", code] });
    configFile = path.join(dir, "agent-tools.config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          refused: { url: `http://127.0.0.1:${await closedPort()}/mcp` },
          // .invalid never resolves (RFC 2606): ENOTFOUND, or EAI_AGAIN on a host without DNS.
          unresolved: { url: "http://mcp.no-such-host.invalid/mcp" },
          noexec: { command: script },
          nocwd: { ...exits("0"), cwd: path.join(dir, "gone") },
          quits: exits("console.error('config error: DB_URL is required'); process.exit(3)"),
          silent: exits("process.exit(5)"),
          leaky: { ...exits("console.error('connecting with', process.env.DBPASS, process.env.DB_PASS); process.exit(1)"), env: { DBPASS: DB_PASS }, envFile: "db.env" },
          remote: { url: http.url, headers: { "X-Db-Pass": HEADER_PASS }, readonlyTools: ["headers"] },
          // A misspelt program (the probe's "nodee"), and a variable that is not set.
          typo: { command: "nodee-no-such-program", args: ["x.js"] },
          keyless: { ...exits("0"), env: { API_KEY: "${SERVER_FAILURES_UNSET_KEY}" } },
        },
      }),
    );
    mkdirSync(path.join(dir, "no-plugins"));
    server = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: configFile });
  });
  after(async () => {
    await server.close();
    await http.close();
  });

  const callError = async (prefix: string) => {
    const { payload } = await callJson(server.client, `agent_tools_${prefix}_call`, { toolName: "anything", arguments: {} });
    assert.ok(payload.error, JSON.stringify(payload));
    return payload.error;
  };

  it("a url nothing listens at: ECONNREFUSED, and a hint to start the server or correct its url", async () => {
    const error = await callError("refused");
    assert.match(error.message, /could not reach its URL's host \(ECONNREFUSED: nothing answered there\)/);
    assert.doesNotMatch(error.message, /Version negotiation/);
    assert.match(error.hint, /start the server, or correct `mcpServers\.refused\.url` in .*agent-tools\.config\.json/);
  });

  it("a url whose host name does not resolve: said so, with a hint to check the spelling or the network, not to start the server", async () => {
    const error = await callError("unresolved");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /could not reach its URL's host \((ENOTFOUND|EAI_AGAIN): the host name does not resolve\)/);
    assert.doesNotMatch(error.message, /Version negotiation|nothing answered/);
    assert.match(error.hint, /^The host name in the server's URL does not resolve \((ENOTFOUND|EAI_AGAIN)\): check that `mcpServers\.unresolved\.url` in .*agent-tools\.config\.json spells the host right, or the network and its DNS/);
    assert.doesNotMatch(error.hint, /start the server|Nothing answered/);
  });

  it("a command that is not executable: the hint says chmod, not an environment variable", async () => {
    const error = await callError("noexec");
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /command '.*server\.sh' \(`mcpServers\.noexec\.command` in .*\) is not executable \(EACCES\)/);
    assert.match(error.hint, /chmod \+x/);
    assert.doesNotMatch(error.hint, /environment/);
    // Its own hint, led by whom to tell: the model cannot chmod the user's file.
    assert.match(error.hint, /^Tell the user: Make the file executable/);
  });

  it("a program not on PATH: its own hint (install it, or correct the entry's command, then restart), never 'set it in the environment'", async () => {
    const error = await callError("typo");
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.equal(error.message, "plugin 'typo' is not configured: install nodee-no-such-program (not found on PATH)");
    assert.deepEqual(error.details, { missing: ["nodee-no-such-program"], bins: ["nodee-no-such-program"] });
    assert.match(error.hint, /^Tell the user \(do not install it yourself\): the program is not installed where the agent-tools server looks; they install it, or correct `mcpServers\.typo\.command` in .*agent-tools\.config\.json if it is misspelt, then restart the server\. Tool arguments cannot fix this\.$/);
    assert.doesNotMatch(error.hint, /environment|details\.missing/);
    // Help says the same to whoever reads it for the user.
    const { payload } = await callJson(server.client, "agent_tools_help", { plugin: "typo" });
    const next = (payload.plugin as { next: { configure: string; tell: string } }).next;
    assert.match(next.configure, /^Install nodee-no-such-program \(not found on PATH\), or correct `mcpServers\.typo\.command` in .*agent-tools\.config\.json if it is misspelt, then restart the agent-tools server; /);
    assert.doesNotMatch(next.configure, /environment/);
  });

  it("a variable that is not set: the hint says to tell the user to set it, not to try", async () => {
    const error = await callError("keyless");
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.deepEqual(error.details, { missing: ["SERVER_FAILURES_UNSET_KEY"] });
    assert.equal(error.hint, "Tell the user to set what `details.missing` lists in the environment of the agent-tools server (not in tool arguments), then restart it; do not try to set it yourself.");
  });

  it("a cwd that does not exist: named as the entry's setting, with a hint to create or correct it", async () => {
    const error = await callError("nocwd");
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /its working folder '.*gone' \(`mcpServers\.nocwd\.cwd` in .*agent-tools\.config\.json\) is not a directory/);
    assert.match(error.hint, /Create that folder, or correct `mcpServers\.nocwd\.cwd`/);
  });

  it("a server that exits while starting: its exit code and its last stderr lines", async () => {
    const quits = await callError("quits");
    assert.match(quits.message, /MCP server 'quits' exited with code 3 before it finished starting/);
    assert.match(quits.message, /config error: DB_URL is required/);
    assert.match(quits.hint, /`mcpServers\.quits\.args`/);
    const silent = await callError("silent");
    assert.match(silent.message, /exited with code 5 before it finished starting .*it wrote nothing to stderr/);
  });

  it("values named *PASS are masked: an env DBPASS and an envFile's DB_PASS printed on stderr, a header X-Db-Pass in a result", async () => {
    const error = await callError("leaky");
    assert.match(error.message, /connecting with \[redacted\] \[redacted\]/);
    assert.ok(!error.message.includes(DB_PASS) && !error.message.includes(FILE_PASS), error.message);
    const { payload } = await callJson(server.client, "agent_tools_remote_call", { toolName: "headers", arguments: {} });
    const text = JSON.stringify(payload.result);
    assert.match(text, /x-db-pass/);
    assert.ok(!text.includes(HEADER_PASS), text);
  });
});

describe("SECRET_NAME", () => {
  it("PASS and PWD as a word of their own or at a name's end are credentials; words that merely contain them are not", () => {
    for (const name of ["DB_PASS", "DBPASS", "PGPASS", "SMTP_PASS", "X_Db_Pass", "MYSQL_PWD", "DB_PWD", "PASSWD", "GPG_PASSPHRASE", "API_TOKEN", "X_Api_Key"]) assert.ok(SECRET_NAME.test(name), name);
    for (const name of ["PASSTHROUGH", "PASS_THROUGH", "BYPASS", "BYPASS_CACHE", "COMPASS_URL", "SURPASS", "PASSIVE_MODE", "PWD", "OLDPWD", "HOME", "PATH"]) assert.ok(!SECRET_NAME.test(name), name);
  });
});
