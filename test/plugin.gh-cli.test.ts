import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { FIXTURES, ROOT, baseEnv, callJson, connect, runCli, type Connected, type Payload } from "./helpers.js";

/**
 * The bundled gh-cli plugin end to end: the built server over stdio runs a fake `gh`
 * (test/fixtures/gh/bin/gh: gh's flags, JSON fields, errors and exit codes) put first on PATH.
 */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-gh-cli");
const GITHUB_PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-github");
const GH_BIN = path.join(FIXTURES, "gh", "bin");
const PATH_WITH_GH = [GH_BIN, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);

const dirs: string[] = [];
function configDir(loggedIn: boolean): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-gh-"));
  dirs.push(dir);
  if (loggedIn) writeFileSync(path.join(dir, "hosts.yml"), "github.com:\n    git_protocol: https\n    user: octocat\n");
  return dir;
}

/** Every gh run the fake recorded in a config dir. */
function calls(dir: string): { argv: string[]; env: Record<string, string | undefined> }[] {
  const file = path.join(dir, "calls.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as { argv: string[]; env: Record<string, string | undefined> });
}

function ghEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  // GH_TOKEN is emptied so a token in the test runner's own environment cannot log the fake in.
  return { PATH: PATH_WITH_GH, GH_CONFIG_DIR: dir, GH_TOKEN: "", GITHUB_TOKEN: "ghp_must_not_reach_gh_000000", ...extra };
}

let conn: Connected;
let home: string;

before(async () => {
  home = configDir(true);
  conn = await connect(PLUGIN, ghEnv(home));
});
after(async () => {
  await conn?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function call(toolName: string, args: Record<string, unknown>, c: Connected = conn): Promise<{ payload: Payload; isError: boolean }> {
  return callJson(c.client, "agent_tools_ghcli_call", { toolName, arguments: args });
}

function stdoutOf<T>(answer: { payload: Payload }): T {
  assert.equal(answer.payload.ok, true, JSON.stringify(answer.payload.error));
  const result = answer.payload.result as { exitCode: number; stdout: T };
  assert.equal(result.exitCode, 0);
  return result.stdout;
}

describe("gh-cli plugin: tools", () => {
  it("is ready with gh on PATH: three read-only tools and the skill", async () => {
    const { payload: help } = await callJson(conn.client, "agent_tools_help", {});
    const plugin = (help.plugins as { prefix: string; status: string }[]).find((p) => p.prefix === "ghcli");
    assert.match(plugin?.status ?? "", /^(ready|configured, not checked)$/);
    const { payload } = await callJson(conn.client, "agent_tools_ghcli_discover", {});
    const matches = payload.matches as { name: string; confirm?: boolean }[];
    assert.deepEqual(matches.map((m) => m.name).sort(), ["issue_list", "pr_list", "repo-overview", "repo_view"]);
    assert.ok(matches.every((m) => !m.confirm), "nothing here changes data");
  });

  it("repo_view runs `gh repo view OWNER/REPO --json …` and answers gh's JSON, open counts included", async () => {
    const before = calls(home).length;
    const view = stdoutOf<Record<string, unknown>>(await call("repo_view", { owner: "octo-org", repo: "widgets" }));
    assert.equal(view.nameWithOwner, "octo-org/widgets");
    assert.deepEqual(view.defaultBranchRef, { name: "main" });
    assert.deepEqual(view.issues, { totalCount: 30 });
    assert.deepEqual(view.pullRequests, { totalCount: 8 });
    assert.equal(view.visibility, "PUBLIC");
    const run = calls(home)[before];
    assert.deepEqual(run?.argv, ["repo", "view", "octo-org/widgets", "--json", "name,nameWithOwner,description,url,defaultBranchRef,visibility,isArchived,isFork,primaryLanguage,stargazerCount,forkCount,licenseInfo,pushedAt,hasIssuesEnabled,issues,pullRequests"]);
    assert.equal(run?.env.GH_PROMPT_DISABLED, "1");
    assert.equal(run?.env.NO_COLOR, "1");
    assert.equal(run?.env.GITHUB_TOKEN, undefined, "the github plugin's token does not reach gh");
  });

  it("issue_list: gh's defaults (open, 30), state, limit and repeated labels", async () => {
    const open = stdoutOf<{ number: number; state: string; author: { login: string } }[]>(await call("issue_list", { owner: "octo-org", repo: "widgets" }));
    assert.equal(open.length, 30, "gh's default limit");
    assert.ok(open.every((i) => i.state === "OPEN"));
    assert.equal(typeof open[0]?.author.login, "string");
    const all = stdoutOf<unknown[]>(await call("issue_list", { owner: "octo-org", repo: "widgets", state: "all", limit: 100 }));
    assert.equal(all.length, 45);
    const closed = stdoutOf<{ state: string }[]>(await call("issue_list", { owner: "octo-org", repo: "widgets", state: "closed", limit: 100 }));
    assert.equal(closed.length, 15);
    assert.ok(closed.every((i) => i.state === "CLOSED"));
    const before = calls(home).length;
    const bugs = stdoutOf<{ labels: { name: string }[] }[]>(await call("issue_list", { owner: "octo-org", repo: "widgets", labels: ["bug"], limit: 3 }));
    assert.equal(bugs.length, 3);
    assert.ok(bugs.every((i) => i.labels.some((l) => l.name === "bug")));
    assert.deepEqual(calls(home)[before]?.argv.slice(6), ["--limit", "3", "--label", "bug"]);
  });

  it("pr_list: open by default, merged, the base filter", async () => {
    const open = stdoutOf<{ number: number; state: string; isDraft: boolean; headRefName: string }[]>(await call("pr_list", { owner: "octo-org", repo: "widgets" }));
    assert.equal(open.length, 8);
    assert.ok(open.every((p) => p.state === "OPEN"));
    assert.equal(open.filter((p) => p.isDraft).length, 1);
    const merged = stdoutOf<{ state: string }[]>(await call("pr_list", { owner: "octo-org", repo: "widgets", state: "merged" }));
    assert.equal(merged.length, 3);
    assert.ok(merged.every((p) => p.state === "MERGED"));
    const trunk = stdoutOf<unknown[]>(await call("pr_list", { owner: "octo-org", repo: "quiet", base: "trunk" }));
    assert.equal(trunk.length, 1);
  });

  it("an unknown repository: gh's GraphQL error becomes a message naming it, with a hint", async () => {
    const { payload, isError } = await call("repo_view", { owner: "octo-org", repo: "nope" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /exited with code 1: GitHub has no repository 'octo-org\/nope' that this login can see/);
    assert.match(payload.error?.hint ?? "", /Check the owner and repo spelling/);
    assert.equal(payload.error?.details?.repository, "octo-org/nope");
    assert.equal(payload.error?.details?.exitCode, 1);
  });

  it("owner and repo cannot smuggle a host, a path or an option", async () => {
    const before = calls(home).length;
    for (const args of [{ owner: "evil.example/octo-org", repo: "widgets" }, { owner: "octo-org", repo: "a/b" }, { owner: "octo-org", repo: ".." }, { owner: "--help", repo: "x" }]) {
      const { payload } = await call("repo_view", args);
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(args));
    }
    const dash = await call("repo_view", { owner: "octo-org", repo: "-R" });
    assert.equal(dash.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(dash.payload.error?.message ?? "", /begins with '-'/);
    assert.equal(calls(home).length, before, "gh never ran");
  });
});

describe("gh-cli plugin: repo-overview skill", () => {
  it("answers the repository with its open issue and pull request counts and the newest of each", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
    assert.equal(payload.ok, true, JSON.stringify(payload.error));
    const r = payload.result as {
      repository: Record<string, unknown>;
      openIssues: { count: number; newest: { number: number }[] };
      openPullRequests: { count: number; newest: { number: number; draft?: boolean }[] };
    };
    assert.equal(r.repository.nameWithOwner, "octo-org/widgets");
    assert.equal(r.repository.defaultBranch, "main");
    assert.equal(r.repository.license, "mit");
    assert.equal(r.openIssues.count, 30);
    assert.equal(r.openPullRequests.count, 8);
    assert.deepEqual(r.openIssues.newest.map((i) => i.number), [88, 86, 82, 80, 76]);
    assert.deepEqual(r.openPullRequests.newest.map((p) => p.number), [17, 15, 13, 11, 9]);
  });

  it("a failing middle step (a rate-limited issue list) names the step and what had finished; the last step does not run", async () => {
    const before = calls(home).length;
    const { payload, isError } = await callJson(conn.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "busy" } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /step 2 of 3 \(open issues: issue_list\) failed: gh \(tool 'issue_list'\) exited with code 1: GitHub's rate limit was hit: GraphQL: API rate limit exceeded/);
    assert.match(payload.error?.hint ?? "", /Wait a few minutes/);
    assert.equal(payload.error?.details?.step, "open issues");
    assert.deepEqual(payload.error?.details?.completed, ["repository"]);
    assert.deepEqual(calls(home).slice(before).map((c) => c.argv.slice(0, 2).join(" ")), ["repo view", "issue list"]);
  });

  it("issues turned off: the issue step is skipped, not failed", async () => {
    const before = calls(home).length;
    const { payload } = await callJson(conn.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "quiet" } });
    assert.equal(payload.ok, true, JSON.stringify(payload.error));
    const r = payload.result as { openIssues: unknown; openPullRequests: { count: number }; notes: string[] };
    assert.equal(r.openIssues, null);
    assert.equal(r.openPullRequests.count, 1);
    assert.deepEqual(r.notes, ["open issues: skipped (issues are turned off for this repository)"]);
    assert.deepEqual(calls(home).slice(before).map((c) => c.argv.slice(0, 2).join(" ")), ["repo view", "pr list"]);
  });

  it("a tool whose stdout is not JSON fails naming the command and quoting the start; the skill's step says so", async () => {
    const { payload, isError } = await call("issue_list", { owner: "octo-org", repo: "chatty" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /gh \(tool 'issue_list'\) answers JSON, but its stdout was not JSON \(it was: "A new release of gh is available: 2\.63\.0 → 2\.64\.0\\nNo issues match/);
    assert.match(payload.error?.hint ?? "", /did not answer as the plugin expects/);
    assert.match(String(payload.error?.details?.stdout), /No issues match your search in octo-org\/chatty/, "the whole stdout is kept");
    const skill = await callJson(conn.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "chatty" } });
    assert.equal(skill.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(skill.payload.error?.message ?? "", /step 2 of 3 \(open issues: issue_list\) failed: gh \(tool 'issue_list'\) answers JSON, but its stdout was not JSON/);
    assert.deepEqual(skill.payload.error?.details?.completed, ["repository"]);
  });

  it("a JSON stdout cut at maxOutputBytes fails saying the limit and how to get under it", async () => {
    const { payload, isError } = await call("pr_list", { owner: "octo-org", repo: "huge" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /gh \(tool 'pr_list'\) answers JSON, but its stdout \(\d+ bytes\) was cut at the adapter's maxOutputBytes \(1048576 bytes\), and cut JSON cannot be read/);
    assert.match(payload.error?.hint ?? "", /^Ask for less: .*; or raise "maxOutputBytes" in the plugin.s cli adapter block/);
    assert.equal(payload.error?.details?.maxOutputBytes, 1048576);
    assert.ok(Number(payload.error?.details?.stdoutBytes) > 1_200_000);
  });

  it("a step whose JSON has another shape (an object for a list) is a step error, not a crash of the skill", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "odd" } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /step 3 of 3 \(open pull requests: pr_list\) answered something the skill cannot read: its stdout is an object, not a JSON list/);
    assert.doesNotMatch(payload.error?.message ?? "", /is not a function/);
    assert.match(payload.error?.hint ?? "", /call 'pr_list' directly/);
    assert.deepEqual(payload.error?.details?.completed, ["repository"], "issues are off: only the repository step had finished");
  });

  it("issue_list on a repository with issues turned off explains it", async () => {
    const { payload } = await call("issue_list", { owner: "octo-org", repo: "quiet" });
    assert.match(payload.error?.message ?? "", /the 'octo-org\/quiet' repository has disabled issues/);
    assert.match(payload.error?.hint ?? "", /Issues are turned off/);
  });
});

describe("gh-cli plugin: gh without a login, and no gh at all", () => {
  it("gh not logged in (exit 4) answers NOT_CONFIGURED with the gh auth login hint", async () => {
    const dir = configDir(false);
    const out = await connect(PLUGIN, ghEnv(dir));
    try {
      const { payload } = await call("issue_list", { owner: "octo-org", repo: "widgets" }, out);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.match(payload.error?.message ?? "", /exited with code 4: gh is not logged in: To get started with GitHub CLI, please run: {2}gh auth login/);
      assert.match(payload.error?.hint ?? "", /Run `gh auth login` on the host/);
      assert.equal(payload.error?.details?.exitCode, 4);
      assert.equal(calls(dir).length, 1, "gh did run");
    } finally {
      await out.close();
    }
  });

  it("GH_TOKEN in the server's environment is gh's own login too", async () => {
    const dir = configDir(false);
    const withToken = await connect(PLUGIN, ghEnv(dir, { GH_TOKEN: "gho_host_token_1234567890" }));
    try {
      const view = stdoutOf<Record<string, unknown>>(await call("repo_view", { owner: "octo-org", repo: "quiet" }, withToken));
      assert.equal(view.nameWithOwner, "octo-org/quiet");
    } finally {
      await withToken.close();
    }
  });

  it("without gh on PATH: listed, help says to install gh, calls and the skill answer NOT_CONFIGURED", async () => {
    const empty = configDir(false);
    const bare = await connect(PLUGIN, { PATH: empty, GH_CONFIG_DIR: empty });
    try {
      const { payload: help } = await callJson(bare.client, "agent_tools_help", {});
      const plugin = (help.plugins as { prefix: string; status: string; skills: string[] }[]).find((p) => p.prefix === "ghcli");
      assert.equal(plugin?.status, "not configured: set GH_CLI_BIN to the gh program or install gh on PATH");
      // The whole list says only what to set; the plugin's own help still names its skills.
      assert.equal(plugin?.skills, undefined);
      const own = (await callJson(bare.client, "agent_tools_help", { plugin: "ghcli" })).payload.plugin as { skills?: { name: string }[] };
      assert.deepEqual(own.skills?.map((skill) => skill.name), ["repo-overview"]);
      const { payload } = await call("repo_view", { owner: "octo-org", repo: "widgets" }, bare);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      // By name, not the manifest's template: the variable to set, and the program it stands for.
      assert.deepEqual(payload.error?.details?.missing, ["GH_CLI_BIN"]);
      assert.deepEqual(payload.error?.details?.bins, ["gh"]);
      const skill = await callJson(bare.client, "agent_tools_ghcli_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
      assert.equal(skill.payload.error?.code, "NOT_CONFIGURED");
    } finally {
      await bare.close();
    }
  });
});

describe("gh-cli plugin: GH_CLI_BIN", () => {
  it("runs the gh that GH_CLI_BIN names, with no gh on PATH", async () => {
    const dir = configDir(true);
    const named = await connect(PLUGIN, { PATH: [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter), GH_CONFIG_DIR: dir, GH_TOKEN: "", GH_CLI_BIN: path.join(GH_BIN, "gh") });
    try {
      const { payload: help } = await callJson(named.client, "agent_tools_help", {});
      const status = () => callJson(named.client, "agent_tools_help", {}).then(({ payload }) => (payload.plugins as { prefix: string; status: string }[]).find((p) => p.prefix === "ghcli")?.status);
      assert.equal(await status(), "configured, not checked", "configured (GH_CLI_BIN set), nothing has answered yet");
      void help;
      const view = stdoutOf<Record<string, unknown>>(await call("repo_view", { owner: "octo-org", repo: "widgets" }, named));
      assert.equal(view.nameWithOwner, "octo-org/widgets");
      assert.equal(await status(), "ready", "ready once the named gh answered");
      assert.equal(calls(dir).length, 1, "the named gh ran");
      const { payload } = await callJson(named.client, "agent_tools_ghcli_discover", { query: "repo view" });
      assert.doesNotMatch(JSON.stringify(payload), /GH_CLI_BIN|fixtures/, "descriptions name gh, not the host's path");
    } finally {
      await named.close();
    }
  });

  it("a GH_CLI_BIN that names nothing is not configured, saying so", async () => {
    const bad = await connect(PLUGIN, { PATH: configDir(false), GH_CLI_BIN: "/nowhere/gh" });
    try {
      const { payload: help } = await callJson(bad.client, "agent_tools_help", {});
      assert.match(JSON.stringify(help), /not configured: GH_CLI_BIN is set, but the program it names does not exist; set GH_CLI_BIN to the gh program or unset it to use gh from PATH/);
      assert.doesNotMatch(JSON.stringify(help), /\/nowhere\/gh/, "the value is not quoted");
    } finally {
      await bad.close();
    }
  });
});

describe("github and gh-cli: related links", () => {
  it("agent-tools validate passes with both plugin folders, and each repo-overview links to the other", async () => {
    const env = baseEnv({ AGENT_TOOLS_PLUGINS_DIR: [GITHUB_PLUGIN, PLUGIN].join(path.delimiter), PATH: PATH_WITH_GH });
    const run = await runCli(["validate"], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; plugins: { prefix: string; configured: boolean; skills: number }[]; problems: string[] };
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.plugins.map((p) => p.prefix).sort(), ["ghcli", "github"]);
    const both = await connect([GITHUB_PLUGIN, PLUGIN].join(path.delimiter), ghEnv(configDir(true)));
    try {
      const { payload } = await callJson(both.client, "agent_tools_help", {});
      assert.equal(payload.problems, undefined, JSON.stringify(payload.problems));
    } finally {
      await both.close();
    }
  });

  it("with the github plugin alone, its link to ghcli:repo-overview is reported broken", async () => {
    const run = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: GITHUB_PLUGIN }));
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as { problems: string[] };
    assert.match(report.problems.join("\n"), /github:repo-overview: related link 'ghcli:repo-overview' does not resolve/);
  });
});
