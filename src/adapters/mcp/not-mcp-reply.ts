import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { errorMessage } from "./errors.js";
import { flatLine } from "../../runtime/one-line.js";

/**
 * A URL that answers, but not as an MCP server (a web page, another API's JSON, a health check):
 * the SDK's era probe fails with its own words, which for a JSON body are the whole Zod report of
 * why the body is no JSON-RPC message (`[ { "code": "invalid_union", … } ]`, hundreds of lines).
 * What it answered, said in a few words, so the message can say the URL is wrong instead.
 */

/** Characters of the parser's or SDK's own words quoted in the reply's description. */
const BRIEF = 120;

/**
 * Whether the probe failed before any answer came: a system error somewhere in the cause chain
 * (ECONNREFUSED, ENOTFOUND, ECONNRESET… under fetch's "fetch failed") or an abort. Those keep
 * their own message and hint (start the server, correct the url), not "this is no MCP server".
 */
function noAnswerCame(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return true;
    if (at instanceof Error && (at.name === "AbortError" || at.name === "TimeoutError")) return true;
  }
  return false;
}

/** What the server answered the probe with, briefly; undefined when `error` is not a probe that got a non-MCP answer. */
export function notMcpReply(error: unknown): string | undefined {
  if (!(error instanceof SdkError) || error.code !== SdkErrorCode.EraNegotiationFailed || !/^Version negotiation probe failed/.test(error.message)) return undefined;
  const cause: unknown = (error as { cause?: unknown }).cause;
  if (noAnswerCame(cause)) return undefined;
  // A ZodError: the body was JSON, but no JSON-RPC message (no "jsonrpc": "2.0", id and result).
  if (cause instanceof Error && Array.isArray((cause as { issues?: unknown }).issues)) return "JSON that is not a JSON-RPC message";
  const type = /Unexpected content type: ([^\s)]+)/.exec(error.message)?.[1];
  if (type) return `a ${type} body, where an MCP server answers JSON or an event stream`;
  if (cause instanceof SyntaxError) return `a body that is not JSON (${flatLine(cause.message, BRIEF)})`;
  return `an unusable reply (${flatLine(errorMessage(cause ?? error), BRIEF)})`;
}
