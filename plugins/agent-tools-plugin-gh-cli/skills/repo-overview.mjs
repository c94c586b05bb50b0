import { runSteps } from "agent-tools-runtime/plugin";

// One call instead of three: the repository with its open issue and pull request counts, and the newest of each.
export const meta = {
  description: "A repository's overview through gh in one call: its details, how many issues and pull requests are open, and the newest five of each.",
  args: {
    type: "object",
    properties: {
      owner: { type: "string", pattern: "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$", description: "user or organisation" },
      repo: { type: "string", pattern: "^(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$", description: "repository name" },
    },
    required: ["owner", "repo"],
    additionalProperties: false,
  },
  related: [{ target: "github:repo-overview", why: "the same overview over the REST API with GITHUB_TOKEN, with the latest commit" }],
};

const RECENT = 5;

/** What a step's `stdout` is, for a shape problem: "text", "a list", "null", "an object". */
function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "string" ? "text" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}
// gh answers the repository as one JSON object and each list as a JSON array, each in `stdout`.
const objectStdout = (result) => (result?.stdout && typeof result.stdout === "object" && !Array.isArray(result.stdout) ? undefined : `its stdout is ${kindOf(result?.stdout)}, not the repository's JSON object`);
function listStdout(result) {
  if (!Array.isArray(result?.stdout)) return `its stdout is ${kindOf(result?.stdout)}, not a JSON list`;
  const odd = result.stdout.findIndex((item) => kindOf(item) !== "an object");
  return odd === -1 ? undefined : `item ${odd + 1} of its list is ${kindOf(result.stdout[odd])}, not an object`;
}

function brief(item) {
  return { number: item.number, title: item.title, author: item.author?.login, url: item.url, ...(item.isDraft ? { draft: true } : {}) };
}

export async function run(adapter, args) {
  const { owner, repo } = args;
  const issuesOff = (r) => r.repository.stdout.hasIssuesEnabled === false;
  const { results, notes } = await runSteps(adapter, [
    { name: "repository", tool: "repo_view", args: { owner, repo }, check: objectStdout },
    { name: "open issues", tool: "issue_list", args: { owner, repo, state: "open", limit: RECENT }, skip: issuesOff, skipReason: "issues are turned off for this repository", check: listStdout },
    { name: "open pull requests", tool: "pr_list", args: { owner, repo, state: "open", limit: RECENT }, check: listStdout },
  ]);
  const view = results.repository.stdout;
  return {
    repository: {
      nameWithOwner: view.nameWithOwner,
      description: view.description,
      url: view.url,
      defaultBranch: view.defaultBranchRef?.name,
      visibility: view.visibility,
      archived: view.isArchived,
      language: view.primaryLanguage?.name,
      stars: view.stargazerCount,
      forks: view.forkCount,
      license: view.licenseInfo?.key,
      pushedAt: view.pushedAt,
    },
    // gh counts open issues (pull requests excluded) and open pull requests in the repository view.
    openIssues: results["open issues"] ? { count: view.issues?.totalCount, newest: results["open issues"].stdout.map(brief) } : null,
    openPullRequests: { count: view.pullRequests?.totalCount, newest: results["open pull requests"].stdout.map(brief) },
    ...(notes.length ? { notes } : {}),
  };
}
