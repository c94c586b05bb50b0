import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * Secrets stay on the host: the built server runs with real credentials in its environment and
 * in its config file; nothing the sandbox can run shows any of them, while plugin and module
 * commands that need them still authenticate.
 */

const SECRETS = {
  GITHUB_TOKEN: "ghp_textlayer_secret_A1b2C3d4E5",
  AGENT_MCP_TOKEN: "mcp-bearer-secret-77f1e2",
  TEAM_TOKEN: "team-bearer-secret-90ab12",
  AWS_SECRET_ACCESS_KEY: "aws-secret-key-should-never-show-31",
  N8N_MCP_TOKEN: "n8n-token-secret-5e6f",
  AGENT_API_TOKEN: "api-token-secret-8c9d",
};
const CONFIG_LITERAL = "literal-config-secret-4410";

const PROBES = [
  "env",
  "printenv",
  "bash -c env",
  "sh -c printenv",
  "bash -c 'bash -c env'",
  "export -p",
  "set",
  "cat /proc/self/environ",
  "ls -R /proc; for f in $(find /proc -type f); do echo \"== $f\"; cat \"$f\"; done",
  "find / -type f 2>/dev/null | head -500 | xargs cat 2>/dev/null | strings | head -2000",
  "grep -rl -e ghp_ -e secret / 2>/dev/null; echo searched",
  "echo $GITHUB_TOKEN $AGENT_MCP_TOKEN $TEAM_TOKEN ${AWS_SECRET_ACCESS_KEY:-unset}",
];

function assertClean(label: string, text: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `${label}: shows the value of ${name}`);
    assert.ok(!new RegExp(`\\b${name}=`).test(text), `${label}: shows the variable ${name}`);
  }
  assert.ok(!text.includes(CONFIG_LITERAL), `${label}: shows a literal from the config file`);
}

describe("secrets stay on the host", () => {
  let fixture: HttpFixture;
  let server: Connected;
  before(async () => {
    fixture = await startHttpFixture({ bearer: true });
    fixture.validAccess.add(SECRETS.TEAM_TOKEN);
    fixture.validAccess.add(SECRETS.AGENT_MCP_TOKEN);
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-text-secrets-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          team: { url: fixture.url, headers: { Authorization: "Bearer ${TEAM_TOKEN}" } },
          local: { command: process.execPath, args: [STDIO_FIXTURE], env: { API_KEY: CONFIG_LITERAL, UPSTREAM_TOKEN: "${GITHUB_TOKEN}" } },
        },
      }),
    );
    server = await connect(undefined, { ...SECRETS, AGENT_TOOLS_CONFIG: config, AGENT_MCP_URL: fixture.url });
  });
  after(async () => {
    await server.close();
    await fixture.close();
  });

  async function exec(command: string): Promise<{ stdout: string; stderr: string; exitCode: number; text: string }> {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command });
    return { stdout: String(payload.stdout), stderr: String(payload.stderr), exitCode: Number(payload.exitCode), text: JSON.stringify(payload) };
  }

  it("env, printenv, nested shells and every /proc path show no credential", async () => {
    const env = await exec("env");
    assert.match(env.stdout, /^HOME=\/home\/user$/m, "the sandbox has its own small environment");
    for (const probe of PROBES) assertClean(probe, (await exec(probe)).text);
    const environ = await exec("cat /proc/self/environ");
    assert.notEqual(environ.exitCode, 0, "there is no /proc/self/environ to read");
  });

  it("plugin commands still authenticate host-side: a bearer-protected MCP server from the config answers", async () => {
    const before = fixture.stats.unauthorized;
    const echoed = await exec(`team call echo '{"text":"authenticated"}' | jq -r .result`);
    assert.equal(echoed.stdout, "authenticated\n", echoed.stderr);
    assert.equal(fixture.stats.unauthorized, before, "the token was accepted on the first try");
    assert.match(String(fixture.stats.lastHeaders.authorization), /^Bearer team-bearer/);
    // `local` is a shell builtin, so that plugin's command is plugin-local.
    const local = await exec(`plugin-local call echo '{"text":"stdio"}' | jq -r .result`);
    assert.equal(local.stdout, "stdio\n", local.stderr);
    for (const probe of PROBES.slice(0, 4)) assertClean(`after calls: ${probe}`, (await exec(probe)).text);
  });

  it("a module that needs a credential reads it on the host; the sandbox still cannot see it", async () => {
    assert.equal((await exec("load commands/generic-mcp")).exitCode, 0);
    const called = await exec("mcp-call --confirm echo --text via-module | jq -r .result");
    assert.equal(called.stdout, "via-module\n", called.stderr);
    const status = await exec("status");
    assert.match(status.text, /"name":"AGENT_MCP_TOKEN","set":true/);
    assertClean("status", status.text);
    for (const probe of PROBES) assertClean(`after load: ${probe}`, (await exec(probe)).text);
  });
});
