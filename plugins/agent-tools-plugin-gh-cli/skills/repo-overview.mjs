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

function brief(item) {
  return { number: item.number, title: item.title, author: item.author?.login, url: item.url, ...(item.isDraft ? { draft: true } : {}) };
}

export async function run(adapter, args) {
  const { owner, repo } = args;
  const issuesOff = (r) => r.repository.stdout.hasIssuesEnabled === false;
  const { results, notes } = await runSteps(adapter, [
    { name: "repository", tool: "repo_view", args: { owner, repo } },
    { name: "open issues", tool: "issue_list", args: { owner, repo, state: "open", limit: RECENT }, skip: issuesOff, skipReason: "issues are turned off for this repository" },
    { name: "open pull requests", tool: "pr_list", args: { owner, repo, state: "open", limit: RECENT } },
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
