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

/** What a value is, for a shape problem: "text", "a list", "null", "an object". */
function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "string" ? "text" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

// A 200 that is not GitHub's JSON (a wrong GITHUB_API_URL, an SSO or captive-portal page) reaches
// the skill as text: counted or shown as data, it would be wrong data reported as a success.
const NOT_GITHUB = "so GITHUB_API_URL answered something that is not GitHub's JSON API";
const NOT_GITHUB_HINT =
  "Check GITHUB_API_URL in the agent-tools server's environment: unset it for https://api.github.com, or set it to GitHub Enterprise Server's https://HOST/api/v3; a login, SSO or proxy page in the way answers HTML. Then restart the server. Arguments cannot fix this; tell the user.";
const objectData = (result) => (result?.data && kindOf(result.data) === "an object" ? undefined : `its answer is ${kindOf(result?.data)}, not a JSON object, ${NOT_GITHUB}`);
// The first of an empty list of commits is no commit, not a wrong answer.
const commitData = (result) => (result?.data === null || result?.data === undefined ? undefined : objectData(result));
const listItems = (result) => (result?.stoppedBecause === "notAnArray" ? `its answer is ${kindOf(result.items?.[0])}, not a JSON list, ${NOT_GITHUB}` : undefined);

export async function run(adapter, args) {
  const { owner, repo } = args;
  const { results, notes } = await runSteps(adapter, [
    { name: "repository", tool: "get_repository", args: { owner, repo }, check: objectData, checkHint: NOT_GITHUB_HINT },
    {
      name: "latest commit",
      tool: "get_latest_commit",
      args: (r) => ({ owner, repo, branch: r.repository.data.default_branch }),
      // GitHub answers 409 for an empty repository: no commits is an answer, not a failure.
      tolerate: (error) => error.status === 409,
      check: commitData,
      checkHint: NOT_GITHUB_HINT,
    },
    {
      name: "open issues",
      tool: "list_issues",
      args: { owner, repo, state: "open" },
      skip: (r) => r.repository.data.has_issues === false,
      skipReason: "issues are turned off for this repository",
      check: listItems,
      checkHint: NOT_GITHUB_HINT,
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
