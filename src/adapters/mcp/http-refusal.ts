import { SdkHttpError } from "@modelcontextprotocol/client";

/**
 * What an MCP server's HTTP refusal (an SdkHttpError: the SDK's transport quotes the body) says:
 * the JSON-RPC error in its body, if it holds one, and whether it refuses the session id itself.
 */

/** A JSON-RPC error read from an HTTP answer's body. */
export interface BodyRpcError {
  code: number;
  message: string;
}

/** JSON-RPC -32602 Invalid params: the call's arguments were refused; never a lost session. */
export const INVALID_PARAMS = -32602;

/** The body of an HTTP refusal, as the SDK's transport kept it; undefined for other errors. */
export function refusalBody(error: unknown): string | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  const text = error.data.text;
  return typeof text === "string" ? text : undefined;
}

/** The JSON-RPC error an HTTP refusal's body holds (`{"jsonrpc":"2.0","error":{code,message}}`), or undefined. */
export function bodyRpcError(error: unknown): BodyRpcError | undefined {
  const body = refusalBody(error);
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const rpc = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (!rpc || typeof rpc.code !== "number" || typeof rpc.message !== "string") return undefined;
  return { code: rpc.code, message: rpc.message };
}

/**
 * Words that say the session id itself is not (or no longer) valid, as servers word it: the
 * SDK's transport and example servers (server-everything among them) answer "Bad Request: No
 * valid session ID provided" (400) or "Session not found" (404); others "Invalid or expired
 * session", "Unknown session", "session id is invalid". "session" must stand as a word, so a
 * parameter such as `session_ttl` or "the 'session' argument" does not count.
 */
const SESSION_ID_REFUSED = [
  /\bno valid session\b/i,
  /\bsession (?:id )?not found\b/i,
  /\b(?:invalid|unknown|expired|terminated) (?:or (?:invalid|unknown|expired) )?session(?: id)?\b(?!['"_-])/i,
  /\bsession(?: id)? (?:is |has )?(?:not valid|invalid|unknown|expired|terminated|been terminated)\b/i,
];

/**
 * Whether a 400 refuses the session id the request carried (the server restarted, or dropped
 * the session: it did not run the request). Only the body's words tell this 400 from any other
 * (bad arguments, a bad header); a JSON-RPC -32602 is about arguments, whatever its words.
 */
export function refusesSessionId(error: unknown): boolean {
  const rpc = bodyRpcError(error);
  if (rpc?.code === INVALID_PARAMS) return false;
  const words = rpc?.message ?? refusalBody(error) ?? "";
  return SESSION_ID_REFUSED.some((pattern) => pattern.test(words));
}
