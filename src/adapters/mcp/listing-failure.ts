import { mcpEndpointMeaning, settingAt, type SettingsLocation } from "../types.js";

/**
 * What to do about a listing of a downstream MCP server (tools/list, …) that failed. A listing
 * takes no tool arguments and changes nothing, so the hints written for a failed tools/call
 * ("ask for less", "check whether the change was made", "fix the arguments") cannot be followed:
 * these say what failed (the server's list), that nothing was changed, and what helps (a retry,
 * or the user, told what is broken and which setting governs it).
 */

/** The requests that list what a server offers: no argument of the caller's is in them. */
export const LISTINGS = new Set(["tools/list", "resources/list", "prompts/list", "resources/templates/list"]);

/** Whether `what` (a request's name in messages: "tools/list", "tools/call 'x'") is a listing. */
export function isListing(what: string): boolean {
  return LISTINGS.has(what);
}

/** "tools/list" → "tool list", "resources/templates/list" → "resource template list". */
function listName(what: string): string {
  const kinds = what.replace(/\/list$/, "").split("/");
  return `${kinds.map((kind) => kind.replace(/s$/, "")).join(" ")} list`;
}

const NOTHING_CHANGED = "A listing changes nothing, so nothing was changed on the server.";
const NO_ARGUMENTS = "Tool arguments cannot fix this.";

/** How a listing failed: the server stopped or the connection broke during it, it answered with an error, or its answer was too large. */
export type ListingFailure = "lost" | "refused" | "failed" | "line-too-large" | "answer-too-large";

export function listingFailureHint(failure: ListingFailure, what: string): string {
  const list = listName(what);
  switch (failure) {
    case "lost":
      return `The server stopped (or the connection to it was cut) while sending its ${list}, so it could not be read. ${NOTHING_CHANGED} Call again once: the server is started (or connected) anew. If it fails the same way, tell the user this MCP server fails while listing (\`message\` has how it ended and its last stderr lines): it must be fixed or updated. ${NO_ARGUMENTS}`;
    case "refused":
      return `The server answered the request for its ${list} with an error (quoted in \`message\`), so it could not be read. ${NOTHING_CHANGED} Call again once; if it answers the same, tell the user this MCP server fails to list (quote its error): it must be fixed on its side. ${NO_ARGUMENTS}`;
    case "failed":
      return `The server's ${list} could not be read (\`message\` says why). ${NOTHING_CHANGED} Call again once; if it fails the same way, tell the user this MCP server cannot be listed, quoting \`message\`. ${NO_ARGUMENTS}`;
    case "line-too-large":
      return `The server's ${list} is larger than one stdio line may carry (10 MiB, not a setting), so none of it was read, and calling again gets the same. ${NOTHING_CHANGED} Tell the user this MCP server's ${list} is too large to use: it must offer fewer or smaller entries (a setting of the server's own, if it has one). ${NO_ARGUMENTS}`;
    case "answer-too-large":
      return `The server's ${list} is larger than the runtime reads of one answer (the cap \`message\` names), so it was not read, and calling again gets the same. ${NOTHING_CHANGED} Tell the user: raising AGENT_TOOLS_MAX_RESPONSE_BYTES in the agent-tools server's environment (then restarting it) lets it through, or the server must offer fewer or smaller entries. ${NO_ARGUMENTS}`;
  }
}

/**
 * A listing refused with an HTTP 4xx (a 400 or 404 that is no lost session): it carries none of
 * the caller's arguments, so the hints for a refused call ("fix the argument", "look the id up
 * first") do not fit; the address it went to, or the server itself, is at fault. `settings`: where
 * the server's `url` is written.
 */
export function listingRefusedHint(what: string, status: number, settings: SettingsLocation | undefined): string {
  return `The server's URL answered the request for its ${listName(what)} with HTTP ${status} (quoted in \`message\`), so it could not be read; a listing carries no tool arguments, so the address it went to or the server is at fault. ${NOTHING_CHANGED} Check that ${settingAt(settings, "url")} is ${mcpEndpointMeaning(settings)}, not a path beside it or another service in front of it, then call again; if it is, tell the user this MCP server refuses to list (quote \`message\`): it must be fixed on its side. ${NO_ARGUMENTS}`;
}
