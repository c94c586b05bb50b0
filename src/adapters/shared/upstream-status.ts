/**
 * What an HTTP failure status of a backend (a REST service, an MCP server over HTTP) tells the
 * model to do. UPSTREAM_ERROR's generic hint ("fix the arguments or try another tool") is wrong
 * for these: a 429 means the service is rate limiting and the same call will work later; a
 * 502/503/504 means it is down for now; any other 5xx failed on the service's side with arguments
 * that are probably fine. The code stays UPSTREAM_ERROR (so clients that read codes see nothing
 * new, and the loop breaker still never counts it); `details` carry the status and, when the
 * service said how long to wait (Retry-After), that wait.
 */

/** A longer Retry-After is read as this (an hour): past it, waiting is the user's decision, not the model's. */
export const MAX_RETRY_AFTER_SECONDS = 3600;
/** Up to this wait the model is told to wait and retry; above it, to tell the user when the service will take calls again. */
const WAIT_IN_PLACE_SECONDS = 60;

/**
 * Seconds to wait from a Retry-After value: whole seconds or an HTTP date (RFC 9110 §10.2.3),
 * rounded up and capped at MAX_RETRY_AFTER_SECONDS; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null | undefined, now: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    // An HTTP date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone would take "-3" as a year.
    const at = /[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at)) return undefined;
    seconds = Math.max(0, Math.ceil((at - now) / 1000));
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

export interface StatusAdvice {
  hint: string;
  details: { status: number; retryAfterSeconds?: number };
}

/** When to retry, in the hint's words. */
function waitWords(wait: number | undefined): string {
  if (wait === undefined) return "Wait a few seconds (longer after each refusal) and send the same call again";
  if (wait === 0) return "Send the same call again now (`details.retryAfterSeconds` is 0)";
  if (wait > WAIT_IN_PLACE_SECONDS) return `The service asks for ${wait} s (\`details.retryAfterSeconds\`) before the next call: tell the user, and send the same call again only after that`;
  return `Wait ${wait} s (\`details.retryAfterSeconds\`) and send the same call again`;
}

/**
 * The hint and details for a backend's HTTP failure `status` (with its Retry-After header, if
 * any); undefined for a status the generic hint fits (4xx other than 429: the request was wrong).
 */
export function upstreamStatusAdvice(status: number, retryAfter?: string | null, now: number = Date.now()): StatusAdvice | undefined {
  const wait = retryAfterSeconds(retryAfter, now);
  const details = { status, ...(wait !== undefined ? { retryAfterSeconds: wait } : {}) };
  if (status === 429) {
    return { hint: `The service is rate limiting these calls (HTTP 429); the arguments and the tool are fine, do not change them. ${waitWords(wait)}.`, details };
  }
  if (status === 502 || status === 503 || status === 504) {
    return { hint: `The service is temporarily unavailable (HTTP ${status}); the arguments are probably fine. ${waitWords(wait)}; if it still fails after a few tries, tell the user.`, details };
  }
  if (status >= 500 && status <= 599) {
    return { hint: `The service failed on its side (HTTP ${status}); the arguments are probably fine. Send the same call again once; if it fails the same way, report \`message\` to the user rather than changing the arguments.`, details };
  }
  return undefined;
}
