/**
 * What the model is told when a backend answered with an error of its own: an MCP tool's result
 * marked `isError` ("note 99 not found"), a CLI program that exited non-zero (git's "unknown
 * revision", "nothing to commit"). The backend ran and answered, so it is working, and what it
 * reports is most often the request: UPSTREAM_ERROR's generic hint ("the service behind this
 * plugin failed … report the failure") had models report an outage instead of fixing the id. No
 * status says which it is, so the hint gives both readings. One wording for both kinds: a model
 * meets them side by side. Import-free, so the adapters and the runtime may both use it.
 */
export function ownErrorHint(subject: "The tool" | "The program", quoted: string): string {
  return `${subject} answered with an error of its own (\`message\` quotes ${quoted}). If it names an id, an argument or a state (not found, invalid, already exists), fix that and call again: look an id up first with one of this plugin's list, search or get tools. If it says the service itself failed or is unavailable, try once more, then tell the user.`;
}
