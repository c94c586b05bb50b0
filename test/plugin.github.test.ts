import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { TOKEN, seedRepos, startGitHubStandIn, type GitHubStandIn } from "./fixtures/github/server.js";
import { ROOT, callJson, connect, type Connected, type Payload } from "./helpers.js";

/** The bundled github plugin end to end: the built server over stdio, the GitHub stand-in over HTTP. */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-github");

let gh: GitHubStandIn;
let conn: Connected;

before(async () => {
  gh = await startGitHubStandIn();
  conn = await connect(PLUGIN, { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url });
});
after(async () => {
  await conn?.close();
  await gh?.close();
});

async function call(toolName: string, args: Record<string, unknown>, confirm?: boolean, c: Connected = conn): Promise<{ payload: Payload; isError: boolean }> {
  return callJson(c.client, "agent_tools_github_call", { toolName, arguments: args, ...(confirm === undefined ? {} : { confirm }) });
}

function result<T = Record<string, unknown>>(answer: Payload | { payload: Payload }): T {
  const payload = "payload" in answer && typeof answer.payload === "object" && answer.payload !== null && "ok" in answer.payload ? (answer.payload as Payload) : (answer as Payload);
  assert.equal(payload.ok, true, JSON.stringify(payload.error));
  return payload.result as T;
}

/** Issues of octo-org/widgets the stand-in holds, as the plugin should report them. */
function expectedIssues(state: "open" | "closed" | "all"): number[] {
  const widgets = seedRepos().get("octo-org/widgets");
  assert.ok(widgets);
  return widgets.issues
    .filter((i) => !i.pull && (state === "all" || i.state === state))
    .map((i) => i.number)
    .sort((a, b) => b - a);
}

describe("github plugin: tools", () => {
  it("lists the facade tools, five tools and the skill, create_issue behind confirm", async () => {
    const { tools } = await conn.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["agent_tools_exec", "agent_tools_github_call", "agent_tools_github_discover", "agent_tools_github_run_skill", "agent_tools_help", "agent_tools_search"]);
    const { payload } = await callJson(conn.client, "agent_tools_github_discover", { limit: 10 });
    const matches = payload.matches as { kind?: string; name: string; writes?: boolean }[];
    assert.deepEqual(matches.map((m) => m.name).sort(), ["create_issue", "get_latest_commit", "get_repository", "list_issues", "repo-overview", "search_repositories"]);
    assert.equal(matches.find((m) => m.name === "create_issue")?.writes, true);
    assert.equal(matches.filter((m) => m.writes).length, 1, "only create_issue changes data");
  });

  it("sends GitHub's documented headers and the token as a Bearer credential", async () => {
    gh.reset();
    result(await call("get_repository", { owner: "octo-org", repo: "widgets" }));
    const sent = gh.requests[0];
    assert.ok(sent);
    assert.equal(sent.headers.accept, "application/vnd.github+json");
    assert.equal(sent.headers["x-github-api-version"], "2022-11-28");
    assert.match(String(sent.headers["user-agent"]), /^agent-tools-runtime-github-plugin\//);
    assert.equal(sent.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(sent.url, "/repos/octo-org/widgets");
  });

  it("search_repositories: the query encoded, total_count kept, each match trimmed to its useful fields", async () => {
    gh.reset();
    const r = result<{ status: number; data: { total_count: number; items: Record<string, unknown>[] } }>(
      await call("search_repositories", { q: "topic:mcp org:octo-org", sort: "stars", per_page: 10 }),
    );
    assert.equal(r.status, 200);
    assert.equal(r.data.total_count, 2);
    assert.deepEqual(r.data.items.map((i) => i.full_name), ["octo-org/widgets", "octo-org/quiet"]);
    const first = r.data.items[0] ?? {};
    assert.equal(first.stars, 4200);
    assert.equal(first.default_branch, "main");
    assert.equal(first.owner, undefined, "the owner object is not passed on");
    assert.equal(first.node_id, undefined);
    assert.equal(gh.requests[0]?.url, "/search/repositories?q=topic%3Amcp+org%3Aocto-org&sort=stars&per_page=10");
  });

  it("search_repositories without a query is refused before GitHub is asked", async () => {
    gh.reset();
    const { payload, isError } = await call("search_repositories", {});
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(gh.requests.length, 0);
  });

  it("get_repository: the repository's key facts", async () => {
    const r = result<{ data: Record<string, unknown> }>(await call("get_repository", { owner: "octo-org", repo: "widgets" }));
    assert.equal(r.data.full_name, "octo-org/widgets");
    assert.equal(r.data.default_branch, "main");
    assert.equal(r.data.license, "MIT");
    assert.deepEqual(r.data.topics, ["widgets", "mcp"]);
    assert.equal(r.data.watchers, 42);
    assert.ok(Object.keys(r.data).length <= 18, "projected, not GitHub's whole object");
  });

  it("list_issues reads every page through the Link header and leaves pull requests out", async () => {
    gh.reset();
    const r = result<{ items: { number: number; state: string; labels: string[] }[]; pages: number; complete: boolean; dropped: number }>(
      await call("list_issues", { owner: "octo-org", repo: "widgets", state: "all" }),
    );
    assert.equal(r.pages, 3, "260 entries at 100 a page");
    assert.equal(r.complete, true);
    assert.deepEqual(r.items.map((i) => i.number), expectedIssues("all"));
    assert.equal(r.dropped, 52, "every fifth entry is a pull request");
    assert.ok(r.items.every((i) => !("pull_request" in i)));
    assert.deepEqual(
      gh.requests.map((q) => q.url),
      ["/repos/octo-org/widgets/issues?state=all&per_page=100", "/repositories/1001/issues?state=all&per_page=100&page=2", "/repositories/1001/issues?state=all&per_page=100&page=3"],
    );
    const labelled = r.items.find((i) => i.number === 4);
    assert.deepEqual(labelled?.labels, ["docs"], "labels projected to their names");
  });

  it("list_issues: state open is GitHub's default, closed and a smaller page size work", async () => {
    const open = result<{ items: { number: number; state: string }[]; pages: number }>(await call("list_issues", { owner: "octo-org", repo: "widgets" }));
    assert.deepEqual(open.items.map((i) => i.number), expectedIssues("open"));
    assert.ok(open.items.every((i) => i.state === "open"));
    gh.reset();
    const closed = result<{ items: { number: number; state: string }[]; pages: number }>(await call("list_issues", { owner: "octo-org", repo: "widgets", state: "closed", per_page: 20 }));
    assert.deepEqual(closed.items.map((i) => i.number), expectedIssues("closed"));
    assert.ok(closed.items.every((i) => i.state === "closed"));
    assert.equal(closed.pages, Math.ceil(86 / 20), "86 closed entries (pull requests included) at 20 a page");
    assert.equal(gh.requests[0]?.url, "/repos/octo-org/widgets/issues?state=closed&per_page=20");
  });

  it("list_issues refuses a state GitHub does not know", async () => {
    const { payload } = await call("list_issues", { owner: "octo-org", repo: "widgets", state: "merged" });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
  });

  it("get_latest_commit: the default branch without a branch, a named branch encoded into the query", async () => {
    gh.reset();
    const main = result<{ data: Record<string, unknown> }>(await call("get_latest_commit", { owner: "octo-org", repo: "widgets" }));
    const widgets = seedRepos().get("octo-org/widgets");
    assert.equal(main.data.sha, widgets?.branches.get("main")?.[0]?.sha);
    assert.equal(main.data.message, "main: change 5");
    assert.equal(main.data.author_login, "octocat");
    assert.equal(gh.requests[0]?.url, "/repos/octo-org/widgets/commits?per_page=1");
    const feature = result<{ data: Record<string, unknown> }>(await call("get_latest_commit", { owner: "octo-org", repo: "widgets", branch: "feature/login" }));
    assert.equal(feature.data.message, "feature/login: change 2");
    assert.equal(gh.requests[1]?.url, "/repos/octo-org/widgets/commits?sha=feature%2Flogin&per_page=1");
  });

  it("get_latest_commit on an empty repository explains GitHub's 409", async () => {
    const { payload } = await call("get_latest_commit", { owner: "octo-org", repo: "empty" });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /HTTP 409: Git Repository is empty/);
    assert.match(payload.error?.hint ?? "", /no commits yet/);
  });
});

describe("github plugin: owner, repo and branch are encoded, never pasted into the path", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["a slash", { owner: "octo-org/widgets", repo: "issues" }, "/repos/octo-org%2Fwidgets/issues"],
    ["a slash inside a value", { owner: "octo-org", repo: "search/repositories" }, "/repos/octo-org/search%2Frepositories"],
    ["a question mark and a hash", { owner: "octo?org", repo: "wid#gets" }, "/repos/octo%3Forg/wid%23gets"],
    ["spaces", { owner: "octo org", repo: "my widgets" }, "/repos/octo%20org/my%20widgets"],
  ];
  for (const [label, args, raw] of cases) {
    it(`${label}: one path segment each, GitHub answers 404`, async () => {
      gh.reset();
      const { payload } = await call("get_repository", args);
      assert.equal(gh.requests[0]?.url, raw);
      assert.equal(payload.error?.code, "UPSTREAM_ERROR");
      assert.match(payload.error?.message ?? "", /HTTP 404/);
      assert.match(payload.error?.hint ?? "", /Check the owner, repo and branch names/);
    });
  }

  it("a value that is exactly '..' is refused before any request", async () => {
    gh.reset();
    const { payload } = await call("list_issues", { owner: "..", repo: "widgets" });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /dot segment/);
    assert.equal(gh.requests.length, 0);
  });

  it("a dot-dot between slashes inside a value is refused before any request (a front decoding %2F would resolve it)", async () => {
    gh.reset();
    const { payload } = await call("get_repository", { owner: "octo-org", repo: "../../search/repositories" });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /path parameter 'repo' must not contain a '\.\.' segment between slashes/);
    assert.equal(gh.requests.length, 0);
  });

  it("a branch with '?', '#', '&' and a space stays one query value", async () => {
    gh.reset();
    const { payload } = await call("get_latest_commit", { owner: "octo-org", repo: "widgets", branch: "x?y#z&per_page=100 w" });
    assert.equal(gh.requests[0]?.url, "/repos/octo-org/widgets/commits?sha=x%3Fy%23z%26per_page%3D100+w&per_page=1");
    assert.match(payload.error?.message ?? "", /No commit found for SHA: x\?y#z&per_page=100 w/);
  });
});

describe("github plugin: create_issue", () => {
  it("is refused without confirm, and nothing is sent", async () => {
    gh.reset();
    const { payload, isError } = await call("create_issue", { owner: "octo-org", repo: "widgets", title: "Broken widget" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED");
    assert.equal(gh.requests.length, 0);
  });

  it("opens the issue with confirm: true and answers its number and URL", async () => {
    gh.reset();
    const r = result<{ status: number; data: Record<string, unknown> }>(
      await call("create_issue", { owner: "octo-org", repo: "widgets", title: "Broken widget", body: "It *broke*.", labels: ["bug"], assignees: ["hubot"] }, true),
    );
    assert.equal(r.status, 201);
    assert.equal(r.data.number, 261);
    assert.equal(r.data.html_url, "https://github.com/octo-org/widgets/issues/261");
    assert.deepEqual(r.data.labels, ["bug"]);
    assert.deepEqual(r.data.assignees, ["hubot"]);
    const sent = gh.requests[0];
    assert.equal(sent?.method, "POST");
    assert.equal(sent?.url, "/repos/octo-org/widgets/issues");
    assert.equal(sent?.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(sent?.body ?? "{}"), { title: "Broken widget", body: "It *broke*.", labels: ["bug"], assignees: ["hubot"] });
  });

  it("GitHub's 422 becomes ARG_VALIDATION_FAILED with GitHub's errors in details", async () => {
    const { payload } = await call("create_issue", { owner: "octo-org", repo: "widgets", title: "Assign it", assignees: ["nobody"] }, true);
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /HTTP 422: GitHub rejected the values: Validation Failed/);
    assert.deepEqual(payload.error?.details?.errors, [{ value: "nobody", resource: "Issue", field: "assignees", code: "invalid" }]);
    assert.match(payload.error?.hint ?? "", /details.errors/);
  });

  it("a repository with issues turned off explains GitHub's 410", async () => {
    const { payload } = await call("create_issue", { owner: "octo-org", repo: "quiet", title: "Hello" }, true);
    assert.match(payload.error?.message ?? "", /HTTP 410: Issues are disabled for this repo/);
    assert.match(payload.error?.hint ?? "", /Issues are turned off/);
  });
});

describe("github plugin: GitHub's errors with hints", () => {
  it("401 Bad credentials says to replace GITHUB_TOKEN", async () => {
    const bad = await connect(PLUGIN, { GITHUB_TOKEN: "ghp_wrong_token_000000", GITHUB_API_URL: gh.url });
    try {
      const { payload } = await call("get_repository", { owner: "octo-org", repo: "widgets" }, undefined, bad);
      assert.equal(payload.error?.code, "UPSTREAM_ERROR");
      assert.match(payload.error?.message ?? "", /HTTP 401: GitHub rejected the token: Bad credentials/);
      assert.match(payload.error?.hint ?? "", /GITHUB_TOKEN is wrong, expired or revoked/);
      assert.equal(payload.error?.details?.status, 401);
      assert.ok(!JSON.stringify(payload).includes("ghp_wrong_token_000000"), "the token never appears");
    } finally {
      await bad.close();
    }
  });

  it("403 with x-ratelimit-remaining 0: the reset time in the message, hint and details", async () => {
    gh.reset();
    gh.rateLimit = "primary";
    const { payload } = await call("get_repository", { owner: "octo-org", repo: "quiet" });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /rate limit is used up \(5000 of 5000 requests for 'core'\); it resets at 2030-01-01T12:00:00.000Z/);
    assert.match(payload.error?.hint ?? "", /Do not call GitHub again before 2030-01-01T12:00:00.000Z/);
    assert.equal(payload.error?.details?.resetAt, "2030-01-01T12:00:00.000Z");
    gh.reset();
  });

  it("403 with retry-after (secondary limit): wait that many seconds", async () => {
    gh.reset();
    gh.rateLimit = "secondary";
    const { payload } = await call("get_repository", { owner: "octo-org", repo: "empty" });
    assert.match(payload.error?.message ?? "", /secondary rate limit/);
    assert.match(payload.error?.hint ?? "", /Wait 60 seconds/);
    assert.equal(payload.error?.details?.retryAfterSeconds, "60");
    gh.reset();
  });

  it("429 whose body names a rate limit, without headers: wait a minute", async () => {
    gh.reset();
    gh.failures.push({ path: /^\/repos\/octo-org\/widgets$/, status: 429, body: { message: "You have exceeded a secondary rate limit.", documentation_url: "https://docs.github.com/rest" } });
    const { payload } = await call("get_repository", { owner: "octo-org", repo: "widgets" });
    assert.match(payload.error?.hint ?? "", /at least one minute/);
    gh.reset();
  });

  it("403 without a rate limit is a missing permission", async () => {
    gh.failures.push({ path: /\/issues$/, status: 403, body: { message: "Resource not accessible by personal access token", documentation_url: "https://docs.github.com/rest", status: "403" } });
    const { payload } = await call("create_issue", { owner: "octo-org", repo: "widgets", title: "No access" }, true);
    assert.match(payload.error?.message ?? "", /GitHub refused access: Resource not accessible by personal access token/);
    assert.match(payload.error?.hint ?? "", /lacks a permission/);
    gh.reset();
  });

  it("a 500 without a rule keeps the generic message with GitHub's body", async () => {
    gh.failures.push({ path: /^\/search\//, status: 500 });
    const { payload } = await call("search_repositories", { q: "anything" });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /answered HTTP 500: .*Server Error/);
    gh.reset();
  });
});

describe("github plugin: repo-overview skill", () => {
  it("answers the repository, the latest commit of the default branch and the open issue count in one call", async () => {
    gh.reset();
    const { payload } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
    const r = result<{ repository: Record<string, unknown>; latestCommit: Record<string, unknown>; openIssues: { count: number; complete: boolean; pullRequestsLeftOut: number } }>(payload);
    assert.equal(r.repository.full_name, "octo-org/widgets");
    assert.equal(r.latestCommit.message, "main: change 5");
    assert.equal(r.openIssues.count, expectedIssues("open").length);
    assert.equal(r.openIssues.complete, true);
    assert.ok(r.openIssues.pullRequestsLeftOut > 0);
    assert.ok((r.repository.open_issues_count as number) > r.openIssues.count, "GitHub's own count includes pull requests");
    assert.equal(gh.requests[1]?.url, "/repos/octo-org/widgets/commits?sha=main&per_page=1");
  });

  it("a commits endpoint answering 500 fails the skill at step 2, naming it and what had finished", async () => {
    gh.reset();
    gh.failures.push({ path: /\/commits$/, status: 500 });
    const { payload, isError } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /step 2 of 3 \(latest commit: get_latest_commit\) failed: GET \/repos\/octo-org\/widgets\/commits\?sha=main&per_page=1 answered HTTP 500/);
    assert.equal(payload.error?.details?.step, "latest commit");
    assert.deepEqual(payload.error?.details?.completed, ["repository"]);
    assert.equal(payload.error?.details?.status, 500);
    assert.equal(gh.requests.some((q) => q.url.includes("/issues")), false, "the later step did not run");
    gh.reset();
  });

  it("a commits endpoint answering 404 keeps the plugin's hint", async () => {
    gh.failures.push({ path: /\/commits$/, status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" } });
    const { payload } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "quiet" } });
    assert.match(payload.error?.message ?? "", /step 2 of 3 \(latest commit/);
    assert.match(payload.error?.hint ?? "", /Check the owner, repo and branch names/);
    assert.deepEqual(payload.error?.details?.upstream, { status: 404 });
    gh.reset();
  });

  it("an empty repository has no latest commit (GitHub's 409 is an answer here), and issues turned off are skipped", async () => {
    gh.reset();
    const empty = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "empty" } });
    const e = result<{ latestCommit: unknown; openIssues: { count: number }; notes: string[] }>(empty);
    assert.equal(e.latestCommit, null);
    assert.equal(e.openIssues.count, 0);
    assert.match(e.notes.join("\n"), /latest commit: .*HTTP 409: Git Repository is empty/);
    gh.reset();
    const quiet = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "quiet" } });
    const q = result<{ latestCommit: { message: string }; openIssues: unknown; notes: string[] }>(quiet);
    assert.equal(q.latestCommit.message, "trunk: change 1");
    assert.equal(q.openIssues, null);
    assert.deepEqual(q.notes, ["open issues: skipped (issues are turned off for this repository)"]);
    assert.equal(gh.requests.some((r) => r.url.includes("/issues")), false);
  });

  it("a GITHUB_API_URL answering 200 HTML fails the skill at the repository, saying the URL answered no GitHub JSON, instead of counting the page as data", async () => {
    gh.reset();
    gh.failures.push({ path: /./, status: 200, html: "<html>Sign in to your company's SSO</html>" });
    const { payload, isError } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
    gh.reset();
    assert.equal(isError, true, JSON.stringify(payload));
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /step 1 of 3 \(repository: get_repository\) answered something the skill cannot read: its answer is text, not a JSON object, so GITHUB_API_URL answered something that is not GitHub's JSON API/);
    assert.match(payload.error?.hint ?? "", /Check GITHUB_API_URL/);
    assert.deepEqual(payload.error?.details?.completed, []);
  });

  it("an issues listing answering 200 HTML fails the skill at step 3 rather than counting the page as one issue", async () => {
    gh.reset();
    gh.failures.push({ path: /\/issues$/, status: 200, html: "<html>captive portal</html>" });
    const { payload, isError } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
    gh.reset();
    assert.equal(isError, true, JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /step 3 of 3 \(open issues: list_issues\) answered something the skill cannot read: its answer is text, not a JSON list, so GITHUB_API_URL answered something that is not GitHub's JSON API/);
    assert.match(payload.error?.hint ?? "", /Check GITHUB_API_URL/);
    assert.deepEqual(payload.error?.details?.completed, ["repository", "latest commit"]);
  });

  it("an unknown repository fails at step 1", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "nope" } });
    assert.match(payload.error?.message ?? "", /step 1 of 3 \(repository: get_repository\) failed/);
    assert.deepEqual(payload.error?.details?.completed, []);
  });
});

describe("github plugin: not configured", () => {
  it("without GITHUB_TOKEN it loads, help says what to set, a call answers NOT_CONFIGURED", async () => {
    const bare = await connect(PLUGIN, { GITHUB_API_URL: gh.url });
    try {
      const { payload: help } = await callJson(bare.client, "agent_tools_help", {});
      const plugins = help.plugins as { prefix: string; status: string; skills: string[] }[];
      const github = plugins.find((p) => p.prefix === "github");
      assert.equal(github?.status, "not configured: set GITHUB_TOKEN");
      // The whole list says only what to set; the plugin's own help still names its skills.
      assert.equal(github?.skills, undefined);
      const own = (await callJson(bare.client, "agent_tools_help", { plugin: "github" })).payload.plugin as { skills?: { name: string }[] };
      assert.deepEqual(own.skills?.map((skill) => skill.name), ["repo-overview"]);
      const { tools } = await bare.client.listTools();
      assert.ok(!tools.some((t) => t.name.startsWith("agent_tools_github_")), "not configured: nothing in tools/list");
      const found = await callJson(bare.client, "agent_tools_search", { query: "list github issues" });
      // Its catalog is known without the token: the match is named with what to set, not a hit whose call fails.
      assert.ok(!(found.payload.hits as { plugin: string }[]).some((h) => h.plugin === "github"), JSON.stringify(found.payload.hits));
      assert.match((found.payload.setup as Record<string, string>).github ?? "", /^set GITHUB_TOKEN to use: .*\blist_issues\b/, JSON.stringify(found.payload.setup));
      gh.reset();
      const { payload, isError } = await call("get_repository", { owner: "octo-org", repo: "widgets" }, undefined, bare);
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual(payload.error?.details?.missing, ["GITHUB_TOKEN"]);
      const skill = await callJson(bare.client, "agent_tools_github_run_skill", { skill: "repo-overview", arguments: { owner: "octo-org", repo: "widgets" } });
      assert.equal(skill.payload.error?.code, "NOT_CONFIGURED");
      assert.equal(gh.requests.length, 0, "nothing reached GitHub");
    } finally {
      await bare.close();
    }
  });
});
