import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { CliError, cliRunnerFromEnv } from "../src/adapters/cli/index.js";
import { createCliAdapter } from "../src/adapters/cli/index.js";
import { CLI_FIXTURES, GITHUB_TOKEN, HOST_SECRET, cliAdapter, ctx, hostEnv, silent, tempDir } from "./fixtures/cli/helpers.js";

/** No shell, option injection refused, allowlists enforced, a minimal child environment, redaction. */

const ARGV_JSON = path.join(CLI_FIXTURES, "argv-json");

function nasty(dir: string): string[] {
  const marker = path.join(dir, "pwned");
  return [
    `x; touch ${marker}`,
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `x | tee ${marker}`,
    `x && touch ${marker}`,
    `x\ntouch ${marker}`,
    `> ${marker}`,
    `\${IFS}touch\${IFS}${marker}`,
    `'"; touch ${marker}; echo "'`,
    "*",
  ];
}

describe("shell metacharacters reach the program as plain text", () => {
  for (const program of ["argv-json", "print-args", "/bin/echo"]) {
    it(`${program}: each value is exactly one argv item and nothing runs`, async () => {
      const dir = tempDir();
      const a = await cliAdapter({
        program,
        allowlist: [program],
        cwd: dir,
        tools: [{ name: "say", argv: ["say", "{value}", "tail={value}"], parse: program === "argv-json" ? "json" : "text" }],
      });
      for (const value of nasty(dir)) {
        const result = (await a.call("say", { value }, ctx())) as { exitCode: number; stdout: unknown };
        assert.equal(result.exitCode, 0);
        if (program === "argv-json") assert.deepEqual((result.stdout as { argv: string[] }).argv, ["say", value, `tail=${value}`]);
        else if (program === "print-args") assert.equal(result.stdout, `[say]\n[${value}]\n[tail=${value}]\n`);
        else assert.equal(result.stdout, `say ${value} tail=${value}\n`);
      }
      assert.equal(existsSync(path.join(dir, "pwned")), false, "a marker file was created: something was run");
      assert.deepEqual(readdirSync(dir), [], "the command created files");
    });
  }

  it("a placeholder inside an item stays one item ({owner}/{repo})", async () => {
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], tools: [{ name: "view", argv: ["repo", "view", "{owner}/{repo}"], parse: "json" }] });
    const result = (await a.call("view", { owner: "a b", repo: "c;d $(e)" }, ctx())) as { stdout: { argv: string[] } };
    assert.deepEqual(result.stdout.argv, ["repo", "view", "a b/c;d $(e)"]);
  });

  it("the text-layer runner passes raw args verbatim, without a shell", async () => {
    const dir = tempDir();
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "argv-json" }));
    const args = nasty(dir);
    const result = await runner.run("argv-json", args, { cwd: dir, parse: "json" });
    assert.deepEqual((result.stdout as { argv: string[] }).argv, args);
    assert.equal(existsSync(path.join(dir, "pwned")), false);
  });
});

describe("option injection", () => {
  const tools = [
    { name: "view", argv: ["repo", "view", "{owner}/{repo}"], parse: "json" },
    { name: "search", argv: ["search", "--limit={limit}", "{query}"], parse: "json" },
    { name: "files", argv: ["log", "--", "{path}"], parse: "json" },
    { name: "opt", argv: ["list"], parse: "json", optional: { limit: ["--limit", "{limit}"] } },
    { name: "many", argv: ["add", "{files...}"], parse: "json" },
  ];

  it("a value beginning with '-' in a positional item is refused, naming the argument", async () => {
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], tools });
    for (const [tool, args, argument] of [
      ["view", { owner: "--upload-pack=touch /tmp/x", repo: "r" }, "owner"],
      ["view", { owner: "o", repo: "-rf" }, "repo"],
      ["search", { limit: 1, query: "--exec=evil" }, "query"],
      ["opt", { limit: "-1" }, "limit"],
      ["many", { files: ["ok", "--force"] }, "files[1]"],
    ] as const) {
      await assert.rejects(a.call(tool, args, ctx()), (error: CliError) => {
        assert.equal(error.code, "ARG_VALIDATION_FAILED");
        assert.match(error.message, new RegExp(`argument '${argument.replace(/[[\]]/g, "\\$&")}'`));
        assert.match(error.message, /begins with '-'/);
        return true;
      }, `${tool} ${JSON.stringify(args)}`);
    }
  });

  it("values beginning with '-' are allowed in option items and after a literal '--'", async () => {
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], tools });
    const search = (await a.call("search", { limit: "-5", query: "q" }, ctx())) as { stdout: { argv: string[] } };
    assert.deepEqual(search.stdout.argv, ["search", "--limit=-5", "q"]);
    const files = (await a.call("files", { path: "-weird-file" }, ctx())) as { stdout: { argv: string[] } };
    assert.deepEqual(files.stdout.argv, ["log", "--", "-weird-file"]);
  });

  it("NUL bytes, objects and undeclared arrays are refused", async () => {
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], tools });
    await assert.rejects(a.call("view", { owner: "a\0b", repo: "r" }, ctx()), { code: "ARG_VALIDATION_FAILED", message: /'owner' holds a NUL byte/ });
    await assert.rejects(a.call("view", { owner: { x: 1 }, repo: "r" }, ctx()), { code: "ARG_VALIDATION_FAILED", message: /'owner' must be a string/ });
    await assert.rejects(a.call("view", { owner: ["a", "b"], repo: "r" }, ctx()), { code: "ARG_VALIDATION_FAILED", message: /'owner' is an array, but the template does not declare it as repeated/ });
  });
});

describe("allowlist", () => {
  const tools = [{ name: "v", argv: ["--version"] }];

  it("refuses a program no allowlist names, with NOT_CONFIGURED saying which variable to set", async () => {
    const a = await cliAdapter({ program: "git", tools });
    await assert.rejects(a.call("v", {}, ctx()), (error: CliError) => {
      assert.equal(error.code, "NOT_CONFIGURED");
      assert.match(error.message, /'git'.*is not allowlisted/);
      assert.match(error.message, /\$AGENT_CLI_ALLOWLIST/);
      assert.deepEqual(error.variables, ["AGENT_CLI_ALLOWLIST"]);
      return true;
    });
  });

  it("either list admits: the manifest's allowlist or AGENT_CLI_ALLOWLIST (comma or space separated)", async () => {
    const byManifest = await cliAdapter({ program: "git", allowlist: ["git"], tools });
    assert.match(((await byManifest.call("v", {}, ctx())) as { stdout: string }).stdout, /^git version /);
    for (const list of ["git", "jq,git", "jq git", " jq ,  git "]) {
      const byHost = await cliAdapter({ program: "git", allowlist: ["jq"], tools }, hostEnv({ AGENT_CLI_ALLOWLIST: list }));
      assert.match(((await byHost.call("v", {}, ctx())) as { stdout: string }).stdout, /^git version /, list);
    }
  });

  it("matches by bare name or by resolved absolute path, never by a different path with the same name", async () => {
    const absolute = await cliAdapter({ program: "git", tools }, hostEnv({ AGENT_CLI_ALLOWLIST: "/usr/bin/git" }));
    assert.equal(((await absolute.call("v", {}, ctx())) as { exitCode: number }).exitCode, 0);
    const byPath = await cliAdapter({ program: "/usr/bin/git", allowlist: ["git"], tools });
    assert.equal(((await byPath.call("v", {}, ctx())) as { exitCode: number }).exitCode, 0);
    // "echo" allowlisted by name admits the echo PATH finds, not some other file called echo.
    const other = await cliAdapter({ program: path.join(tempDir(), "..", "..", "bin", "echo"), allowlist: ["print-args"], tools });
    await assert.rejects(other.call("v", {}, ctx()), { code: "NOT_CONFIGURED" });
    const impostor = await cliAdapter({ program: ARGV_JSON, tools }, hostEnv({ AGENT_CLI_ALLOWLIST: "/usr/bin/argv-json" }));
    await assert.rejects(impostor.call("v", {}, ctx()), { code: "NOT_CONFIGURED", message: /is not allowlisted/ });
  });

  it("names both lists when neither admits the program: the plugin's adapter.allowlist and AGENT_CLI_ALLOWLIST", async () => {
    const a = await cliAdapter({ program: "git", tools });
    await assert.rejects(a.call("v", {}, ctx()), { code: "NOT_CONFIGURED", message: /add 'git' to the plugin's adapter\.allowlist \(its plugin\.json\), or 'git' to \$AGENT_CLI_ALLOWLIST/ });
  });

  it("a relative program path runs the plugin folder's file, never one of that name in the server's working directory", async () => {
    const script = (words: string): string => `#!/bin/sh\necho ${words}\n`;
    const plugin = tempDir();
    const elsewhere = tempDir();
    for (const [dir, words] of [[plugin, "plugin"], [elsewhere, "hijacked"]] as const) {
      writeFileSync(path.join(dir, "tool.sh"), script(words));
      chmodSync(path.join(dir, "tool.sh"), 0o755);
    }
    const block = { kind: "cli", program: "./tool.sh", allowlist: ["./tool.sh"], tools: [{ name: "run", argv: [] }] };
    const adapter = await createCliAdapter(block, { pluginDir: plugin, manifest: {}, env: hostEnv(), log: silent });
    const started = process.cwd();
    process.chdir(elsewhere);
    try {
      assert.equal(((await adapter.call("run", {}, ctx())) as { stdout: string }).stdout, "plugin\n");
    } finally {
      process.chdir(started);
    }
    // Not there: the error names the path it was resolved to.
    const empty = tempDir();
    mkdirSync(path.join(empty, "sub"));
    const missing = await createCliAdapter(block, { pluginDir: path.join(empty, "sub"), manifest: {}, env: hostEnv(), log: silent });
    await assert.rejects(missing.call("run", {}, ctx()), { code: "NOT_CONFIGURED", message: `program './tool.sh' was not found (resolved against the plugin folder: ${path.join(empty, "sub", "tool.sh")}) or is not executable; make it an executable file there, or fix the plugin's adapter.program` });
  });

  it("a program not on PATH is NOT_CONFIGURED (install it)", async () => {
    const a = await cliAdapter({ program: "definitely-not-a-program-xyz", allowlist: ["definitely-not-a-program-xyz"], tools });
    await assert.rejects(a.call("v", {}, ctx()), { code: "NOT_CONFIGURED", message: /not found on PATH/ });
  });

  it("the runner needs AGENT_CLI_ALLOWLIST and refuses what it does not name", async () => {
    assert.throws(() => cliRunnerFromEnv(hostEnv()), { code: "NOT_CONFIGURED", message: /AGENT_CLI_ALLOWLIST/ });
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "git, argv-json" }));
    assert.deepEqual(runner.allowlist, ["git", "argv-json"]);
    assert.equal(runner.allowed("git"), true);
    assert.equal(runner.allowed("sh"), false);
    await assert.rejects(runner.run("sh", ["-c", "touch /tmp/agent-tools-never"]), { code: "NOT_CONFIGURED", message: /'sh'.*AGENT_CLI_ALLOWLIST/ });
    await assert.rejects(runner.run("/bin/sh", ["-c", "true"]), { code: "NOT_CONFIGURED" });
  });
});

describe("child environment", () => {
  it("carries the safe base and the declared variables, nothing else of the host", async () => {
    const a = await cliAdapter({
      program: "argv-json",
      allowlist: ["argv-json"],
      env: { GH_TOKEN: "${GITHUB_TOKEN}", PLAIN: "literal", WITH_DEFAULT: "${UNSET_VAR:-fallback}" },
      tools: [{ name: "env", argv: [], parse: "json" }],
    });
    const result = (await a.call("env", {}, ctx())) as { stdout: { env: Record<string, string> } };
    const env = result.stdout.env;
    assert.equal(env.HOST_SECRET, undefined, "a host secret reached the child");
    assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
    assert.equal(env.GITHUB_TOKEN, undefined, "only the declared name carries the token");
    assert.equal(env.PLAIN, "literal");
    assert.equal(env.WITH_DEFAULT, "fallback");
    // The token reached the child, but the result shows it redacted.
    assert.equal(env.GH_TOKEN, "[redacted]");
    assert.ok(env.PATH && env.HOME && env.LANG);
    // AGENT_TOOLS_DEPTH: how deep in a chain of runtimes the child is (runtime-depth.ts), a number.
    assert.match(env.AGENT_TOOLS_DEPTH ?? "", /^\d+$/);
    const allowed = new Set(["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "GH_TOKEN", "PLAIN", "WITH_DEFAULT", "AGENT_TOOLS_DEPTH"]);
    // Node itself may add nothing; the shell-less spawn adds nothing either.
    assert.deepEqual(Object.keys(env).filter((k) => !allowed.has(k)), []);
    assert.ok(!JSON.stringify(result).includes(GITHUB_TOKEN));
    assert.ok(!JSON.stringify(result).includes(HOST_SECRET));
  });

  it("masks declared values unless their name says they are a setting: not a host name or a config folder the results quote", async () => {
    const host = hostEnv({ ENTERPRISE_HOST: "ghe.example.com", GH_SETTINGS: "/srv/gh-config", OPAQUE: "opaque-value-4567", XOXB: "xoxb-plain-name-8910" });
    const a = await cliAdapter(
      {
        program: "argv-json",
        allowlist: ["argv-json"],
        env: { GH_HOST: "${ENTERPRISE_HOST}", GH_CONFIG_DIR: "${GH_SETTINGS}", GH_TOKEN: "${GITHUB_TOKEN}", GH_ENTERPRISE_TOKEN: "${OPAQUE}", API_URL: "https://${HOST_SECRET}@api.example.com", SLACK_BOT: "${XOXB}" },
        tools: [{ name: "show", argv: ["https://ghe.example.com/octo/widgets", "/srv/gh-config/hosts.yml"], parse: "json" }],
      },
      host,
    );
    const result = (await a.call("show", {}, ctx())) as { stdout: { argv: string[]; env: Record<string, string> } };
    assert.deepEqual(result.stdout.argv, ["https://ghe.example.com/octo/widgets", "/srv/gh-config/hosts.yml"]);
    assert.equal(result.stdout.env.GH_HOST, "ghe.example.com");
    assert.equal(result.stdout.env.GH_CONFIG_DIR, "/srv/gh-config");
    // A credential by its declared name, whatever the host variable is called; and one by the host variable's name.
    assert.equal(result.stdout.env.GH_TOKEN, "[redacted]");
    assert.equal(result.stdout.env.GH_ENTERPRISE_TOKEN, "[redacted]");
    assert.ok(!JSON.stringify(result).includes(HOST_SECRET), "a secret-named host variable inside a setting stays masked");
    assert.equal(result.stdout.env.SLACK_BOT, "[redacted]", "a name that says nothing keeps its value masked");
  });

  it("the declared variable really holds the host value in the child", async () => {
    const a = await cliAdapter({ program: "fail", allowlist: ["fail"], env: { GH_TOKEN: "${GITHUB_TOKEN}" }, tools: [{ name: "f", argv: ["0", "ok"] }] });
    // fail prints the token to stderr when set; exit 0 here, so it is a result — redacted.
    const result = (await a.call("f", {}, ctx())) as { stderr: string };
    assert.match(result.stderr, /token was \[redacted\]/);
  });

  it("a declared variable whose host value is missing is NOT_CONFIGURED, naming it", async () => {
    const env = hostEnv();
    delete env.GITHUB_TOKEN;
    const a = await cliAdapter({ program: "argv-json", allowlist: ["argv-json"], env: { GH_TOKEN: "${GITHUB_TOKEN}" }, tools: [{ name: "e", argv: [] }] }, env);
    await assert.rejects(a.call("e", {}, ctx()), (error: Error & { code?: string; variables?: string[] }) => {
      assert.equal(error.code, "NOT_CONFIGURED");
      assert.deepEqual(error.variables, ["GITHUB_TOKEN"]);
      assert.match(error.message, /\$GITHUB_TOKEN/);
      return true;
    });
  });

  it("the runner's children get only the safe base", async () => {
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "argv-json" }));
    const result = await runner.run("argv-json", [], { parse: "json" });
    const env = (result.stdout as { env: Record<string, string> }).env;
    assert.equal(env.HOST_SECRET, undefined);
    assert.equal(env.AGENT_CLI_ALLOWLIST, undefined);
    assert.ok(env.PATH);
  });
});

/**
 * A cut through a credential must not show the part of it left on this side: the output cap cuts
 * the end of a stream, and an error quotes the last part of stderr. The caller's arguments move
 * the cut (here the message's length), so every position in the token is tried.
 */
describe("a credential cut by a limit is masked", () => {
  const leaks = (text: string): string | undefined => {
    for (let k = 4; k <= GITHUB_TOKEN.length; k++) {
      if (text.includes(GITHUB_TOKEN.slice(0, k)) && k === GITHUB_TOKEN.length) return GITHUB_TOKEN;
      if (text.includes(GITHUB_TOKEN.slice(0, k)) && !text.includes(GITHUB_TOKEN.slice(0, k + 1))) return GITHUB_TOKEN.slice(0, k);
      if (text.includes(GITHUB_TOKEN.slice(-k))) return GITHUB_TOKEN.slice(-k);
    }
    return undefined;
  };

  it("the output cap cutting stderr inside the token", async () => {
    const max = 64;
    const a = await cliAdapter({ program: "fail", allowlist: ["fail"], env: { GH_TOKEN: "${GITHUB_TOKEN}" }, maxOutputBytes: max, tools: [{ name: "f", argv: ["0", "{message}"] }] });
    // stderr is "error: <message>\ntoken was <token>\n": each length puts the cut at another character of the token.
    const before = "error: \ntoken was ".length;
    for (let cut = 1; cut < GITHUB_TOKEN.length; cut++) {
      const result = (await a.call("f", { message: "m".repeat(max - before - cut) }, ctx())) as { stderr: string; truncated?: boolean };
      assert.equal(result.truncated, true);
      assert.equal(leaks(result.stderr), undefined, `cut after ${cut} characters of the token: ${result.stderr}`);
    }
  });

  it("an error's stderr tail starting inside the token", async () => {
    const a = await cliAdapter({ program: "tell-then-fail", allowlist: ["tell-then-fail"], env: { GH_TOKEN: "${GITHUB_TOKEN}" }, tools: [{ name: "f", argv: ["{count}"] }] });
    // stderr is "token was <token>\n" then <count> x's: the last 1000 characters start inside the token for these counts.
    for (let inside = 1; inside < GITHUB_TOKEN.length; inside++) {
      const error = await a.call("f", { count: String(1000 - inside) }, ctx()).then(
        () => assert.fail("the program exits 1"),
        (e: CliError) => e,
      );
      const text = JSON.stringify({ message: error.message, details: (error as { details?: unknown }).details });
      assert.equal(leaks(text), undefined, `${inside} characters of the token in the tail: ${text}`);
    }
  });
});
