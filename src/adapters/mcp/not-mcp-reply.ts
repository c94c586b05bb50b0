import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { errorMessage } from "./errors.js";

/**
 * A URL that answers, but not as an MCP server (a web page, another API's JSON, a health check):
 * the SDK's era probe fails with its own words, which for a JSON body are the whole Zod report of
 * why the body is no JSON-RPC message (`[ { "code": "invalid_union", … } ]`, hundreds of lines).
 * What it answered, said in a few words, so the message can say the URL is wrong instead.
 */

const BRIEF = 120;

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > BRIEF ? `${line.slice(0, BRIEF - 1)}…` : line;
}

/** What the server answered the probe with, briefly; undefined when `error` is not a probe that got a non-MCP answer. */
export function notMcpReply(error: unknown): string | undefined {
  if (!(error instanceof SdkError) || error.code !== SdkErrorCode.EraNegotiationFailed || !/^Version negotiation probe failed/.test(error.message)) return undefined;
  const cause: unknown = (error as { cause?: unknown }).cause;
  // A ZodError: the body was JSON, but no JSON-RPC message (no "jsonrpc": "2.0", id and result).
  if (cause instanceof Error && Array.isArray((cause as { issues?: unknown }).issues)) return "JSON that is not a JSON-RPC message";
  const type = /Unexpected content type: ([^\s)]+)/.exec(error.message)?.[1];
  if (type) return `a ${type} body, where an MCP server answers JSON or an event stream`;
  if (cause instanceof SyntaxError) return `a body that is not JSON (${cut(cause.message)})`;
  return `an unusable reply (${cut(errorMessage(cause ?? error))})`;
}
