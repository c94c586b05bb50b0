import { runSteps } from "agent-tools-runtime/plugin";

// One call instead of three: the repository, its latest commit and how many issues are open.
export const meta = {
  description: "A repository's overview in one call: its details, the latest commit on the default branch, and how many issues are open (pull requests not counted).",
  args: {
    type: "object",
    properties: {
      owner: { type: "string", minLength: 1, description: "user or organisation" },
      repo: { type: "string", minLength: 1, description: "repository name" },
    },
    required: ["owner", "repo"],
    additionalProperties: false,
  },
  related: [{ target: "ghcli:repo-overview", why: "the same overview through the local gh CLI and its own login, with open pull requests counted too" }],
};

export async function run(adapter, args) {
  const { owner, repo } = args;
  const { results, notes } = await runSteps(adapter, [
    { name: "repository", tool: "get_repository", args: { owner, repo } },
    {
      name: "latest commit",
      tool: "get_latest_commit",
      args: (r) => ({ owner, repo, branch: r.repository.data.default_branch }),
      // GitHub answers 409 for an empty repository: no commits is an answer, not a failure.
      tolerate: (error) => error.status === 409,
    },
    {
      name: "open issues",
      tool: "list_issues",
      args: { owner, repo, state: "open" },
      skip: (r) => r.repository.data.has_issues === false,
      skipReason: "issues are turned off for this repository",
    },
  ]);
  const issues = results["open issues"];
  return {
    repository: results.repository.data,
    latestCommit: results["latest commit"]?.data ?? null,
    openIssues: issues
      ? {
          count: issues.items.length,
          // Past the page cap the count is only a lower bound.
          complete: issues.complete,
          pullRequestsLeftOut: issues.dropped ?? 0,
        }
      : null,
    ...(notes.length ? { notes } : {}),
  };
}
