import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ENV_SETTINGS, envSettingProblems } from "../src/config/env-settings.js";
import { waitFromEnv } from "../src/env-switch.js";
import { positiveInt, positiveMs } from "../src/positive-int.js";
import { importTimeoutFromEnv } from "../src/plugins/import-deadline.js";
import { textLayerOptionsFromEnv } from "../src/text/text-layer.js";
import { approximateFromEnv } from "../src/runtime/search/semantic/hybrid.js";
import { optimizeAfterFromEnv } from "../src/tier-hold.js";
import { describeWaitMs } from "../src/facade/server.js";
import { drainDelayMs, drainMs } from "../src/transports/http.js";
import { resolveHttpOptions } from "../src/transports/http/options.js";
import { auditMaxBytes, createSharedState, DEFAULT_AUDIT_MAX_BYTES } from "../src/state/index.js";
import { silentLogger } from "../src/log.js";
import { baseEnv, connect, FIXTURES, MCP_BIN, PLUGINS, ROOT, runCli, textJson } from "./helpers.js";
import { untilValue } from "./wait.js";

/**
 * The AGENT_TOOLS_* variables: one table (config/env-settings.ts) that the code, README and the
 * start check agree on; a bad value or an unknown name is said on stderr and listed by validate,
 * over the built bins.
 */

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : file.endsWith(".ts") ? [file] : [];
  });
}

const NAME = /AGENT_TOOLS_[A-Z0-9_]*[A-Z0-9]/g;

/** The AGENT_TOOLS_* names in README's "Environment variables" table. */
function readmeTableNames(): Set<string> {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Environment variables\n"));
  const table = section.slice(0, section.indexOf("\n## ", 1));
  // Only the variable column: an effect may mention a variable the row is not about.
  const names = table.split("\n").filter((line) => line.startsWith("| `")).flatMap((line) => line.split(" | ")[0]!.match(NAME) ?? []);
  return new Set(names);
}

describe("environment settings: one table", () => {
  const known = new Set(Object.keys(ENV_SETTINGS));

  it("every AGENT_TOOLS_* name in src/ is in the table", () => {
    const missing = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, "src"))) for (const name of readFileSync(file, "utf8").match(NAME) ?? []) if (!known.has(name)) missing.add(`${name} (${path.relative(ROOT, file)})`);
    assert.deepEqual([...missing], []);
  });

  it("the table and README's Environment variables table list the same names", () => {
    const readme = readmeTableNames();
    assert.deepEqual([...known].filter((name) => !readme.has(name)), [], "in config/env-settings.ts, not in README");
    assert.deepEqual([...readme].filter((name) => !known.has(name)), [], "in README, not in config/env-settings.ts");
  });
});

/** Whether `read` takes the value: it neither throws nor warns. */
function takes(read: (warn: (message: string) => void) => unknown): boolean {
  let warned = false;
  try {
    read(() => (warned = true));
  } catch {
    return false;
  }
  return !warned;
}

/**
 * Each number setting's own reader, where it is not positive-int.ts's positiveInt: whether it
 * takes a value (trimmed, as the check has it).
 */
const READERS: Record<string, (value: string) => boolean> = {
  AGENT_TOOLS_HTTP_PORT: (value) => takes(() => resolveHttpOptions({ AGENT_TOOLS_HTTP_PORT: value })),
  AGENT_TOOLS_DRAIN_MS: (value) => takes((warn) => drainMs({ AGENT_TOOLS_DRAIN_MS: value }, false, { warn })),
  AGENT_TOOLS_DRAIN_DELAY_MS: (value) => takes((warn) => drainDelayMs({ AGENT_TOOLS_DRAIN_DELAY_MS: value }, true, { warn })),
  AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: (value) => takes((warn) => optimizeAfterFromEnv(value, warn)),
  AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM: (value) => takes(() => approximateFromEnv({ AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM: value })),
  // Says nothing of a bad value: taken when it is not the default, or is blank (unset) or 5000.
  AGENT_TOOLS_DESCRIBE_WAIT_MS: (value) => !value.trim() || describeWaitMs({ AGENT_TOOLS_DESCRIBE_WAIT_MS: value }) !== 5000 || Number(value) === 5000,
  AGENT_TOOLS_EXEC_TIMEOUT_MS: (value) => !value.trim() || textLayerOptionsFromEnv({ AGENT_TOOLS_EXEC_TIMEOUT_MS: value }).timeoutMs !== undefined,
  AGENT_TOOLS_EXEC_HOLD_MS: (value) => !value.trim() || textLayerOptionsFromEnv({ AGENT_TOOLS_EXEC_HOLD_MS: value }).holdMs !== undefined,
  AGENT_TOOLS_IMPORT_TIMEOUT_MS: (value) => !value.trim() || importTimeoutFromEnv({ AGENT_TOOLS_IMPORT_TIMEOUT_MS: value }) !== 10_000 || Number(value) === 10_000,
  AGENT_TOOLS_HTTP_SESSION_IDLE_MS: (value) => takes(() => resolveHttpOptions({ AGENT_TOOLS_HTTP_SESSION_IDLE_MS: value })),
  AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS: (value) => takes(() => resolveHttpOptions({ AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS: value })),
  // Says nothing of a bad value: taken when it is off (undefined), not the default, or blank (unset) or the default.
  AGENT_TOOLS_AUDIT_MAX_BYTES: (value) => !value.trim() || auditMaxBytes({ AGENT_TOOLS_AUDIT_MAX_BYTES: value }) !== DEFAULT_AUDIT_MAX_BYTES || Number(value) === DEFAULT_AUDIT_MAX_BYTES,
};
// The last four: a timer's longest wait (2^31−1 ms) and past it, which millisecond settings refuse.
const ODD_VALUES = ["1.5", "1e3", "-1", "70000", " 5 ", "", "0", "0x10", "abc", "off", "9007199254740993", "2147483647", "2147483648", "3000000000", "1e10"];

describe("environment settings: the check takes what each reader takes", () => {
  for (const [name, setting] of Object.entries(ENV_SETTINGS)) {
    if (setting.kind !== "number" && setting.kind !== "wait") continue;
    it(name, () => {
      const reader =
        READERS[name] ??
        (setting.kind === "wait"
          ? (value: string) => takes((warn) => waitFromEnv(name, value, warn))
          : setting.parse === positiveInt || setting.parse === positiveMs
            ? (value: string) => !value.trim() || setting.parse(value.trim()) !== undefined
            : assert.fail(`${name} has a parser of its own: add its reader to READERS`));
      for (const value of ODD_VALUES) {
        const checked = envSettingProblems({ [name]: value }).length === 0;
        assert.equal(checked, reader(value), `${name}='${value}': the check ${checked ? "accepts" : "refuses"} it, the reader does not`);
      }
    });
  }
});

describe("environment settings: milliseconds stop at a timer's longest wait (2^31-1)", () => {
  const timers = Object.entries(ENV_SETTINGS).filter(([, setting]) => (setting.kind === "number" && setting.timer) || setting.kind === "wait");

  it("every setting a timer waits on takes 2147483647 and says 2147483648 is more than a timer can wait", () => {
    // The call, exec, import, confirm and HTTP session timeouts, the drain, the describe and semantic waits.
    assert.ok(timers.length >= 10, timers.map(([name]) => name).join(", "));
    for (const [name] of timers) {
      assert.deepEqual(envSettingProblems({ [name]: "2147483647" }), [], name);
      const [problem] = envSettingProblems({ [name]: "2147483648" });
      assert.match(problem?.message ?? "", new RegExp(`^${name} is '2147483648', more than a timer can wait: it must be at most 2147483647 \\(about 24\\.8 days, the longest a timer waits\\); using the default`), name);
    }
  });

  it("a call timeout past it: validate fails naming it, and a server answers a call under the default instead of failing it at once", async () => {
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_CALL_TIMEOUT_MS: "3000000000" }));
    assert.equal(ran.code, 1, ran.stderr);
    const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
    assert.ok(
      problems.includes("AGENT_TOOLS_CALL_TIMEOUT_MS is '3000000000', more than a timer can wait: it must be at most 2147483647 (about 24.8 days, the longest a timer waits); using the default 40000 (write e.g. 60000)"),
      JSON.stringify(problems, null, 1),
    );
    const server = await connect(PLUGINS, { AGENT_TOOLS_CALL_TIMEOUT_MS: "3000000000", AGENT_TOOLS_EXEC_TIMEOUT_MS: "3000000000" });
    try {
      const exec = await server.client.callTool({ name: "agent_tools_exec", arguments: { command: "sleep 0.2; echo ok" } });
      assert.equal(textJson<{ stdout: string }>(exec).stdout, "ok\n", JSON.stringify(exec));
      assert.doesNotMatch(server.stderr(), /TimeoutOverflowWarning/);
    } finally {
      await server.close();
    }
  });

  it("a config file's or a manifest's timeoutMs past it is a problem naming the field", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-timer-ms-"));
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { far: { url: "http://127.0.0.1:9/mcp", timeoutMs: 3000000000 } }, http: { sessionIdleMs: 2147483648 } }));
    const ran = await runCli(["validate", "--config", config], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "none") }));
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stdout, /mcpServers\.far: field 'timeoutMs' must be <= 2147483647 \(got 3000000000\)/);
    assert.match(ran.stdout, /field 'http\.sessionIdleMs' must be <= 2147483647 \(got 2147483648\)/);
    const plugin = path.join(dir, "plugins", "agent-tools-plugin-far");
    mkdirSync(plugin, { recursive: true });
    writeFileSync(path.join(plugin, "plugin.json"), JSON.stringify({ name: "far", prefix: "far", adapter: { kind: "cli", program: "echo", timeoutMs: 3000000000, tools: [{ name: "hi", argv: ["hi"] }] } }));
    const manifest = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "plugins") }));
    assert.equal(manifest.code, 1, manifest.stderr);
    assert.match(manifest.stdout, /field 'adapter\.timeoutMs' must be a whole number of milliseconds from 1 to 2147483647 \(about 24\.8 days, the longest a timer waits\)/);
  });
});

describe("environment settings: bad values over the built bins", () => {
  it("validate lists a port or a drain time the HTTP server would refuse: AGENT_TOOLS_HTTP_PORT=80.5 or 70000, AGENT_TOOLS_DRAIN_MS=1e3", async () => {
    for (const [port, drain] of [["80.5", "1e3"], ["70000", "1.5"]] as const) {
      const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_HTTP_PORT: port, AGENT_TOOLS_DRAIN_MS: drain }));
      assert.equal(ran.code, 1, ran.stderr);
      const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
      assert.ok(problems.includes(`AGENT_TOOLS_HTTP_PORT is '${port}', not a port number, a whole number from 0 to 65535 (0 picks a free one); using the default 8321 (write e.g. 8322)`), JSON.stringify(problems, null, 1));
      assert.ok(problems.includes(`AGENT_TOOLS_DRAIN_MS is '${drain}', not a whole number of milliseconds, 0 or more; using the default 30000 for a team gateway, else 2000 (write e.g. 5000)`), JSON.stringify(problems, null, 1));
    }
  });

  it("validate lists each bad value and unknown name, with what it takes and what applies, and fails; stdout stays the JSON answer", async () => {
    const ran = await runCli(
      ["validate"],
      baseEnv({
        AGENT_TOOLS_PLUGINS_DIR: PLUGINS,
        AGENT_TOOLS_EXEC_TIMEOUT_MS: "1s",
        AGENT_TOOLS_LOG: "verbose",
        AGENT_TOOLS_SEMANTIC: "of",
        AGENT_TOOLS_CALL_TIMEOUT: "5000",
        AGENT_TOOLS_FACADE: "tiny",
      }),
    );
    assert.equal(ran.code, 1, ran.stderr);
    const report = JSON.parse(ran.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    const expected = [
      "AGENT_TOOLS_EXEC_TIMEOUT_MS is '1s', not a whole number of milliseconds above 0; using the default 30000 (write e.g. 60000)",
      "AGENT_TOOLS_LOG is 'verbose', not one of debug, info, warn, error, silent; using the default, info (warn for the one-off commands)",
      "AGENT_TOOLS_SEMANTIC is 'of', neither on nor off; using the default, on (write off, 0, false or no to turn it off; on, 1, true or yes to turn it on)",
      "AGENT_TOOLS_FACADE is 'tiny', not one of per-plugin, compact; using the default, the config's facade.mode, else per-plugin",
    ];
    for (const line of expected) assert.ok(report.problems.includes(line), `${line}\nnot in ${JSON.stringify(report.problems, null, 1)}`);
    const typo = report.problems.find((p) => p.startsWith("AGENT_TOOLS_CALL_TIMEOUT "));
    assert.match(typo ?? "", /agent-tools reads no variable of that name, so it changes nothing; did you mean AGENT_TOOLS_CALL_TIMEOUT_MS/);
    for (const line of expected) assert.ok(ran.stderr.includes(`agent-tools validate: ${line}`), ran.stderr);
  });

  it("the stdio server says a bad value once on stderr at start, keeps stdout for JSON-RPC, and a value the reader says itself is not said twice", async () => {
    const server = await connect(PLUGINS, { AGENT_TOOLS_LIST_CONCURRENCY: "many", AGENT_TOOLS_CONFIRM: "always", AGENT_TOOLS_LOG: "warn" });
    try {
      const { tools } = await server.client.listTools();
      assert.ok(tools.length > 0);
      const stderr = server.stderr();
      assert.equal(stderr.split("\n").filter((l) => l.includes("AGENT_TOOLS_LIST_CONCURRENCY is 'many', not a whole number of listings above 0; using the default 6 (write e.g. 4)")).length, 1, stderr);
      assert.equal(stderr.split("\n").filter((l) => l.includes("AGENT_TOOLS_CONFIRM")).length, 1, stderr);
    } finally {
      await server.close();
    }
  });

  it("nothing is said for good values, switch words in any case included", async () => {
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_FAST_LANE: "No", AGENT_TOOLS_SEMANTIC: "OFF", AGENT_TOOLS_EXEC_TIMEOUT_MS: "5000", AGENT_TOOLS_SEMANTIC_WAIT_MS: "forever" }));
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stderr, /AGENT_TOOLS_/);
  });

  it("a switch that took only 1 takes every on word: AGENT_TOOLS_NO_BUNDLED_PLUGINS=true, AGENT_TOOLS_EXEC_MOUNT_CWD=yes", async () => {
    const noBundled = await runCli(["validate"], baseEnv({ AGENT_TOOLS_NO_BUNDLED_PLUGINS: "true" }));
    const report = JSON.parse(noBundled.stdout) as { plugins: unknown[] };
    assert.deepEqual(report.plugins, [], noBundled.stdout);
    const exec = await runCli(["exec", "ls /workdir"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_EXEC_MOUNT_CWD: "yes" }));
    const answer = JSON.parse(exec.stdout) as { stdout: string };
    assert.ok(answer.stdout.split("\n").includes(readdirSync(FIXTURES)[0]!), exec.stdout);
  });
});

describe("AGENT_TOOLS_AUDIT reads switch words as every switch does", () => {
  it("OFF, No, disabled turn the audit log off (no file named after the word); on and YES keep the default place; anything else is a file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-audit-word-"));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const word of ["OFF", "No", "disabled", "0"]) {
        const state = await createSharedState({ env: { AGENT_TOOLS_AUDIT: word }, log: silentLogger });
        assert.equal(state.audit, undefined, word);
        await state.close();
      }
      const defaultFile = path.join(dir, "default-audit.jsonl");
      for (const word of ["on", "YES"]) {
        const state = await createSharedState({ env: { AGENT_TOOLS_AUDIT: word, AGENT_TOOLS_AUDIT_FILE: defaultFile }, log: silentLogger });
        assert.ok(state.audit, word);
        await state.close();
      }
      const named = await createSharedState({ env: { AGENT_TOOLS_AUDIT: "audit.jsonl" }, log: silentLogger });
      assert.ok(named.audit);
      await named.close();
      assert.equal(existsSync(path.join(dir, "OFF")), false);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("environment settings: a path starting with ~ (no shell expanded it)", () => {
  const tildeFolder = path.join(FIXTURES, "~");

  it("AGENT_TOOLS_CACHE_DIR='~/…' is said at start and in validate; the default cache folder is used, no '~' folder is made", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-tilde-cache-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } } }));
    const env = { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: "~/agent-tools-tilde-test", XDG_CACHE_HOME: path.join(dir, "xdg") };
    const said = "AGENT_TOOLS_CACHE_DIR is '~/agent-tools-tilde-test', a path that starts with ~, which only a shell expands (a client's config does not); the default cache folder is used instead; use an absolute path";
    const ran = await runCli(["validate"], baseEnv(env));
    assert.equal(ran.code, 1, ran.stderr);
    assert.ok((JSON.parse(ran.stdout) as { problems: string[] }).problems.some((p) => p.startsWith(said)), ran.stdout);
    const server = await connect(path.join(dir, "no-plugins"), env);
    try {
      const stored = path.join(dir, "xdg", "agent-tools-runtime", "catalogs");
      await untilValue("the catalog stored in the default folder", () => (existsSync(stored) && readdirSync(stored).some((n) => n.endsWith(".json")) ? true : undefined));
      assert.ok(server.stderr().includes(said), server.stderr());
    } finally {
      await server.close();
    }
    assert.equal(existsSync(tildeFolder), false, "no folder named '~' in the working folder");
    rmSync(dir, { recursive: true, force: true });
  });

  it("AGENT_TOOLS_AUDIT_FILE='~/…' stops the start naming the variable and the fix, before anything is made", async () => {
    const ran = await runCli([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: "~/audit.jsonl" }), MCP_BIN);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stderr, /the audit log ~\/audit\.jsonl \(from AGENT_TOOLS_AUDIT_FILE\) starts with ~, which only a shell expands .*use an absolute path \(AGENT_TOOLS_AUDIT_FILE=.*\/audit\.jsonl\)/);
    assert.equal(ran.stdout, "", "stdout carries only JSON-RPC");
    assert.equal(existsSync(tildeFolder), false);
  });

  it("AGENT_TOOLS_PLUGINS_DIR='~/…' that does not exist says ~ is not expanded, with the absolute path it likely meant", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-tilde-home-"));
    const ran = await runCli(["validate"], baseEnv({ HOME: home, AGENT_TOOLS_PLUGINS_DIR: "~/plugins" }));
    assert.equal(ran.code, 1, ran.stderr);
    const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
    assert.deepEqual(problems, [
      `AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) names ~/plugins, which starts with ~, which only a shell expands (a client's config does not); no plugins were loaded from it (use an absolute path (AGENT_TOOLS_PLUGINS_DIR=${path.join(home, "plugins")}), or $HOME/… where a shell reads the value)`,
    ]);
    rmSync(home, { recursive: true, force: true });
  });

  it("AGENT_TOOLS_CONFIG='~/…' that does not exist says ~ is not expanded", async () => {
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_CONFIG: "~/no-such-agent-tools.json" }));
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /~\/no-such-agent-tools\.json: does not exist \(named by AGENT_TOOLS_CONFIG\): '~\/no-such-agent-tools\.json' starts with ~, which only a shell expands \(a client's config does not\); use an absolute path \(AGENT_TOOLS_CONFIG=/);
  });
});

describe("settings a server refuses to start with: validate and status list them in their JSON", () => {
  it("AGENT_TOOLS_STATE_KEY too short: validate says the server's own line (never the key) and fails; the stdio server refuses with it; a 32-byte key passes", async () => {
    const said = "AGENT_TOOLS_STATE_KEY must hold at least 32 bytes (64 hex characters, or base64); it holds 3. Make one with `openssl rand -hex 32`";
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_STATE_KEY: "short" }));
    assert.equal(ran.code, 1, ran.stderr);
    const report = JSON.parse(ran.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems.filter((p) => p.includes("AGENT_TOOLS_STATE_KEY")), [said]);
    assert.doesNotMatch(ran.stdout + ran.stderr, /short/);
    const server = await runCli([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_STATE_KEY: "short" }), MCP_BIN, "");
    assert.equal(server.code, 1, server.stderr);
    assert.ok(server.stderr.includes(said), server.stderr);
    assert.equal(server.stdout, "", "stdout carries only JSON-RPC");
    const good = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_STATE_KEY: "ab".repeat(32) }));
    assert.equal(good.code, 0, good.stderr);
  });

  it("AGENT_TOOLS_AUDIT naming a folder: validate answers ok false with the plugins and the audit problem, exit 1", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "agent-tools-audit-folder-"));
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_AUDIT: folder }));
    assert.equal(ran.code, 1, ran.stderr);
    const report = JSON.parse(ran.stdout) as { ok: boolean; plugins: unknown[]; problems: string[] };
    assert.equal(report.ok, false);
    assert.ok(report.plugins.length > 0, ran.stdout);
    assert.ok(report.problems.some((p) => p.startsWith(`the audit log ${folder} (from AGENT_TOOLS_AUDIT) is a folder`)), ran.stdout);
    rmSync(folder, { recursive: true, force: true });
  });

  it("AGENT_TOOLS_REDIS_URL not redis://: status answers NOT READY with it, exit 1; exec answers its line not run; AGENT_TOOLS_AUDIT_FILE='~/…' likewise", async () => {
    const status = await runCli(["status"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_REDIS_URL: "http://user:pw@x" }));
    assert.equal(status.code, 1, status.stderr);
    const answer = JSON.parse(status.stdout) as { ok: boolean; exitCode: number; result: { status: string; problems: string[] } };
    assert.equal(answer.ok, false);
    assert.equal(answer.exitCode, 1);
    assert.equal(answer.result.status, "NOT READY");
    assert.match(answer.result.problems[0] ?? "", /^AGENT_TOOLS_REDIS_URL must start with redis:\/\/ or rediss:\/\//);
    assert.doesNotMatch(status.stdout + status.stderr, /:pw@/, "the URL's password is masked");
    const exec = await runCli(["exec", "echo hi"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_AUDIT: "", AGENT_TOOLS_AUDIT_FILE: "~/audit.jsonl" }));
    assert.equal(exec.code, 1, exec.stderr);
    const refused = JSON.parse(exec.stdout) as { ok: boolean; command: string; problems: string[] };
    assert.equal(refused.ok, false);
    assert.equal(refused.command, "echo hi");
    assert.match(refused.problems[0] ?? "", /^the audit log ~\/audit\.jsonl \(from AGENT_TOOLS_AUDIT_FILE\) starts with ~/);
    assert.equal(existsSync(path.join(FIXTURES, "~")), false);
  });
});
