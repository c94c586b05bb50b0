import { SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { readCappedBody } from "../shared/capped-body.js";

/**
 * An MCP server over HTTP that refuses a message with 429 or 5xx may say when to come back
 * (`Retry-After`). The SDK's transports turn that answer into an SdkHttpError that keeps the status
 * and the body but no header, so the wait was lost and the model was told to guess. The fetch the
 * transports are given (withRetryAfter) throws this error instead for such an answer to a POST
 * (a JSON-RPC message): an SdkHttpError with the SDK's own words and data, so the SDK and
 * McpConnection read it as they read the SDK's (its version probe included), plus the header.
 * Other answers, and GETs (the server's event stream, which the SDK reconnects itself), are left
 * to the SDK.
 */
export class RetryAfterHttpError extends SdkHttpError {
  /** The Retry-After header as the server sent it (seconds or an HTTP date): upstreamStatusAdvice reads it. */
  readonly retryAfter: string;

  constructor(status: number, statusText: string, text: string, retryAfter: string) {
    super(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, statusText, text });
    this.name = "RetryAfterHttpError";
    this.retryAfter = retryAfter;
  }
}

/** How much of a refusal's body is kept for the message: it says why, and a refusal's body is short. */
const REFUSAL_BODY_BYTES = 4096;

/** 429 and 5xx: the statuses whose hint tells the model to wait and send the same call again (upstream-status.ts). */
function isRetryLater(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** `base`, throwing RetryAfterHttpError for a POST answered 429 or 5xx with a Retry-After. */
export function withRetryAfter(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const retryAfter = response.headers.get("retry-after");
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (retryAfter === null || !isRetryLater(response.status) || method.toUpperCase() !== "POST") return response;
    const { bytes, truncated } = await readCappedBody(response, REFUSAL_BODY_BYTES, "the refusal", { truncate: true }).catch(() => ({ bytes: new Uint8Array(0), truncated: false }));
    const text = new TextDecoder().decode(bytes) + (truncated ? "…" : "");
    throw new RetryAfterHttpError(response.status, response.statusText, text, retryAfter);
  };
}
