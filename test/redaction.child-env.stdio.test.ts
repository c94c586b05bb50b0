import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { callJson, ROOT, stdioForSuite, writePlugin } from "./helpers.js";

/**
 * The `env` a stdio MCP server is declared with is masked by the rule the cli adapter's `env`
 * uses: a setting (a host name, a config folder) that results quote stays readable, a credential
 * by name stays masked. Every declared `${VAR}` value was masked once, so a server started with
 * `GH_HOST: ${ENTERPRISE_HOST}` answered `https://[redacted]/octo-org/widgets`.
 */

const HOST = "ghe.example.com";
const CONFIG_DIR = "/srv/gh-config";
// Host variables with plain names: only the declared name says whether the value is a credential.
const TOKEN = "opaque-value-7719";
const PLAIN_NAMED = "xoxb-plain-name-5512";
const INNER_SECRET = "inner-pass-3306";
const LITERAL_TOKEN = "literal-token-4420";
// Settings by their names (*_URL) whose values hold a credential that no name points at.
const SLACK_PATH = "T0000/B0000/XXXXsecretXXXXXXXX";
const SLACK_WEBHOOK = `https://hooks.slack.com/services/${SLACK_PATH}`;
const DISCORD_PATH = "123456/abcdefSECRETghijk";
const DISCORD_WEBHOOK = `https://discord.com/api/webhooks/${DISCORD_PATH}`;
const BOT_TOKEN = "123456:ABCdefGHIjklMNO";
const TELEGRAM = `https://api.telegram.org/bot${BOT_TOKEN}/`;
const RANDOM_PATH_TOKEN = "q9Xv2LmT7rKp4WzN8sYb3HcJ6dFg1AeQ";
const TOKEN_IN_PATH = `https://hooks.example.com/in/${RANDOM_PATH_TOKEN}`;
const DSN_PASSWORD = "dsn-pass-8841";
const DSN = `Server=db.example.com;Database=app;User Id=app;Password=${DSN_PASSWORD};`;
// Paths in args and env: shown when the variable's name says nothing of a credential.
const SCRIPT_FILE = "/srv/tools/gate/server.py";
const TOKEN_AS_PATH = "/tok/ab12-secret";
const OPAQUE_ARG = "opaque-arg-5521";
// Values with a `/` that are no path (they do not start as one, or hold `@ ; =`): masked whole.
const CONN_STRING = "Server=db/inst;Password=hunter2xyz";
const SCHEMELESS_URL = "alice:s3cr3tpw@db.internal/app";
const KEY_WITH_SLASHES = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

const dir = mkdtempSync(path.join(tmpdir(), "redaction-child-env-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-envs"), {
  name: "envs",
  prefix: "envs",
  description: "A stdio server that answers the values of its environment.",
  adapter: {
    kind: "mcp",
    command: process.execPath,
    args: [path.join(ROOT, "test", "fixtures", "mcp", "stdio-server.mjs"), "${SCRIPT_FILE}", "${GATE_TOKEN}", "${OPAQUE_ARG}", "${CONN}", "${PGCONN}", "${MINIO}"],
    env: {
      TOOL_SCRIPT: "${SCRIPT_FILE}",
      GH_HOST: "${ENTERPRISE_HOST}",
      GH_CONFIG_DIR: "${GH_SETTINGS}",
      API_URL: "https://ci:${DB_PASSWORD}@${ENTERPRISE_HOST}/api",
      GH_TOKEN: "${OPAQUE}",
      SLACK_BOT: "${XOXB}",
      LITERAL_TOKEN: LITERAL_TOKEN,
      SLACK_WEBHOOK_URL: "${SLACK_WEBHOOK_URL}",
      DISCORD_WEBHOOK_URL: "${DISCORD_WEBHOOK_URL}",
      TG_URL: "${TG_URL}",
      HOOK_ENDPOINT: "${HOOK_ENDPOINT}",
      DB_URL: "${DB_DSN}",
      X_CONN: "${CONN}",
      X_PGCONN: "${PGCONN}",
      X_MINIO: "${MINIO}",
    },
    timeoutMs: 30_000,
  },
});

describe("a stdio MCP server's declared env in results", () => {
  const agent = stdioForSuite(pluginsDir, { ENTERPRISE_HOST: HOST, GH_SETTINGS: CONFIG_DIR, OPAQUE: TOKEN, XOXB: PLAIN_NAMED, DB_PASSWORD: INNER_SECRET,
    SLACK_WEBHOOK_URL: SLACK_WEBHOOK, DISCORD_WEBHOOK_URL: DISCORD_WEBHOOK, TG_URL: TELEGRAM, HOOK_ENDPOINT: TOKEN_IN_PATH, DB_DSN: DSN,
    SCRIPT_FILE, GATE_TOKEN: TOKEN_AS_PATH, OPAQUE_ARG, CONN: CONN_STRING, PGCONN: SCHEMELESS_URL, MINIO: KEY_WITH_SLASHES });

  it("shows a host name and a config folder as they are, and masks credentials by name, inside a URL too", async () => {
    const names = ["GH_HOST", "GH_CONFIG_DIR", "API_URL", "GH_TOKEN", "SLACK_BOT", "LITERAL_TOKEN"];
    const { payload, isError } = await callJson(agent.client, "agent_tools_envs_call", { toolName: "env", arguments: { names }, confirm: true });
    assert.equal(isError, false, JSON.stringify(payload));
    const text = JSON.stringify(payload);
    const { values } = payload.result as { values: Record<string, string> };
    assert.equal(values.GH_HOST, HOST, "a host name results quote is not masked");
    assert.equal(values.GH_CONFIG_DIR, CONFIG_DIR, "a config folder is not masked");
    assert.equal(values.API_URL, `https://ci:[redacted]@${HOST}/api`, "a URL setting shows its host, not its password");
    assert.equal(values.GH_TOKEN, "[redacted]", "a credential by its declared name is masked");
    assert.equal(values.SLACK_BOT, "[redacted]", "a name that says nothing keeps its value masked");
    assert.equal(values.LITERAL_TOKEN, "[redacted]", "a literal value under a secret name is masked");
    for (const secret of [TOKEN, PLAIN_NAMED, INNER_SECRET, LITERAL_TOKEN]) assert.ok(!text.includes(secret), `${secret} is not shown`);
  });

  it("masks the credential a URL setting holds in its path or as a connection string's password, and keeps the rest readable", async () => {
    const names = ["GH_HOST", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK_URL", "TG_URL", "HOOK_ENDPOINT", "DB_URL"];
    const { payload, isError } = await callJson(agent.client, "agent_tools_envs_call", { toolName: "env", arguments: { names }, confirm: true });
    assert.equal(isError, false, JSON.stringify(payload));
    const text = JSON.stringify(payload);
    const { values } = payload.result as { values: Record<string, string> };
    assert.equal(values.GH_HOST, HOST, "a host name stays readable");
    assert.equal(values.SLACK_WEBHOOK_URL, "https://hooks.slack.com/services/[redacted]", "a Slack webhook's path is masked");
    assert.equal(values.DISCORD_WEBHOOK_URL, "https://discord.com/api/webhooks/[redacted]", "a Discord webhook's path is masked");
    assert.equal(values.TG_URL, "https://api.telegram.org/bot[redacted]/", "a Telegram bot token in the path is masked");
    assert.equal(values.HOOK_ENDPOINT, "https://hooks.example.com/in/[redacted]", "a long random path segment is masked");
    assert.equal(values.DB_URL, "Server=db.example.com;Database=app;User Id=app;Password=[redacted];", "a connection string's password is masked");
    for (const secret of [SLACK_PATH, DISCORD_PATH, BOT_TOKEN, RANDOM_PATH_TOKEN, DSN_PASSWORD]) assert.ok(!text.includes(secret), `${secret} is not shown`);
  });

  /**
   * A path given in `args` or `env` through a variable whose name says nothing of a credential
   * (CCDD_GATE_SCRIPT) is where a program is: masked, its first 12 characters masked every path
   * under the same folder in every plugin's results ("see [redacted]README.md").
   */
  it("shows a path a plainly named variable gives in args or env, and the paths under its folder; a credential's name or a value that is no path stays masked", async () => {
    const text = `see /srv/tools/gate/README.md, ${TOKEN_AS_PATH}/x and ${OPAQUE_ARG}`;
    const echoed = await callJson(agent.client, "agent_tools_envs_call", { toolName: "echo", arguments: { text } });
    assert.equal(echoed.isError, false, JSON.stringify(echoed.payload));
    assert.match(JSON.stringify(echoed.payload), /see \/srv\/tools\/gate\/README\.md, \[redacted\]\/x and \[redacted\]/);
    const { payload } = await callJson(agent.client, "agent_tools_envs_call", { toolName: "env", arguments: { names: ["TOOL_SCRIPT"] }, confirm: true });
    assert.equal((payload.result as { values: Record<string, string> }).values.TOOL_SCRIPT, SCRIPT_FILE, "a path in env under a plain name is shown");
    const all = JSON.stringify([echoed.payload, payload]);
    for (const secret of [TOKEN_AS_PATH, OPAQUE_ARG]) assert.ok(!all.includes(secret), `${secret} is not shown`);
  });

  /** A `/` does not make a value a path: a connection string, a URL without its scheme or a generated key may hold one. */
  it("masks a value with a '/' that does not start as a path or holds '@', ';' or '=', in args and in env under a plain name", async () => {
    const secrets = [CONN_STRING, SCHEMELESS_URL, KEY_WITH_SLASHES];
    const echoed = await callJson(agent.client, "agent_tools_envs_call", { toolName: "echo", arguments: { text: secrets.join(" | ") } });
    assert.equal(echoed.isError, false, JSON.stringify(echoed.payload));
    const { payload, isError } = await callJson(agent.client, "agent_tools_envs_call", { toolName: "env", arguments: { names: ["X_CONN", "X_PGCONN", "X_MINIO"] }, confirm: true });
    assert.equal(isError, false, JSON.stringify(payload));
    const { values } = payload.result as { values: Record<string, string> };
    for (const name of ["X_CONN", "X_PGCONN", "X_MINIO"]) assert.equal(values[name], "[redacted]", `${name} is masked`);
    const all = JSON.stringify([echoed.payload, payload]);
    for (const secret of [...secrets, "hunter2xyz", "s3cr3tpw"]) assert.ok(!all.includes(secret), `${secret} is not shown`);
  });
});
