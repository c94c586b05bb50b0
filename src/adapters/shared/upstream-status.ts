/**
 * What an HTTP failure status of a backend (a REST service, an MCP server over HTTP) tells the
 * model to do. UPSTREAM_ERROR's generic hint ("the service failed") is wrong for these: a 429
 * means the service is rate limiting and the same call will work later; a 502/503/504 means it is
 * down for now; any other 5xx failed on the service's side with arguments that are probably fine;
 * and a 4xx means the service is working and refused this request: a model told "the service
 * failed" reports an outage instead of fixing the id or the date. So each 4xx says what to fix:
 * 401/403 the credentials or permissions (the user's to fix), 404/410 an id or name that does not
 * exist (look it up first), 409/412 the data's current state (read it first), 400/422 an argument
 * (the one `message` names). The code stays UPSTREAM_ERROR (clients that read codes see nothing
 * new); `details` carry the status and, when the service said how long to wait (Retry-After),
 * that wait. A refusal (retryCannotFix) is the same answer to the same call: the loop breaker
 * counts it; a 429, 408, 425 or 5xx may pass on a retry and is never counted.
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
  details: { status: number; retryAfterSeconds?: number; rateLimited?: true };
}

export interface StatusAdviceOptions {
  /** The Retry-After header's value, if any. */
  retryAfter?: string | null | undefined;
  /** A 403 that carries a sign of rate limiting (GitHub's `x-ratelimit-remaining: 0`, a Retry-After): advised as a 429. */
  rateLimited?: boolean;
  /**
   * What the status answered: "resource" (default), a REST call's own resource, whose every 4xx
   * is about what the call named; "message", an MCP message over HTTP, whose 404 or 409 is about
   * the endpoint or the session, never an id in the tool's arguments: only its 400/422 (the
   * request's content refused) get a 4xx hint, the rest the generic one.
   */
  of?: "resource" | "message";
  now?: number;
}

/** When to retry, in the hint's words. */
function waitWords(wait: number | undefined): string {
  if (wait === undefined) return "Wait a few seconds (longer after each refusal) and send the same call again";
  if (wait === 0) return "Send the same call again now (`details.retryAfterSeconds` is 0)";
  if (wait > WAIT_IN_PLACE_SECONDS) return `The service asks for ${wait} s (\`details.retryAfterSeconds\`) before the next call: tell the user, and send the same call again only after that`;
  return `Wait ${wait} s (\`details.retryAfterSeconds\`) and send the same call again`;
}

/** Said of every refusal: why repeating it is no use (and why the loop breaker stops a third). */
const SAME_ANSWER = "the same call gets the same answer";

/** Statuses that ask for the same request again later: not a refusal of what it asked. */
const SEND_AGAIN: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * The hint for credentials or permissions the service refused (a 401, a 403 that is no rate
 * limit, a refused login), when no better one names the variables to set: the user's to fix.
 */
export function credentialsRefusedHint(status: number): string {
  return `The service refused the credentials or this account's permissions (HTTP ${status}); the arguments are not at fault. Tell the user (the plugin's credentials may be missing, expired or without access to this); do not send the call again.`;
}

/** The hint for a 4xx refusal (not 408, 425 or 429), by what the status says was wrong. */
function refusalHint(status: number): string {
  switch (status) {
    case 400:
    case 422:
      return `The service is working and refused the call's arguments (HTTP ${status}). Fix the argument \`message\` names (its value, type or format) and call again; ${SAME_ANSWER}.`;
    case 401:
    case 403:
      return credentialsRefusedHint(status);
    case 404:
    case 410:
      return `The service is working and has nothing at what this call names (HTTP ${status}): an id, name or path in the arguments does not exist${status === 410 ? " any more" : ""}. Look it up first with one of this plugin's list, search or get tools, then call again with one it shows; ${SAME_ANSWER}.`;
    case 409:
    case 412:
      return `The service is working and refused the call because of the data's current state (HTTP ${status}, ${status === 409 ? "a conflict" : "a precondition that no longer holds"}); \`message\` says what. Read the current state first (a get or list tool of this plugin), then call again with arguments that fit it, or tell the user if the change cannot be made as asked.`;
    default:
      return `The service is working and refused this request (HTTP ${status}); \`message\` says what it objected to. Change what it names (an argument, or ask for less) and call again, or use another tool; ${SAME_ANSWER}.`;
  }
}

/**
 * The hint and details for a backend's HTTP failure `status`; undefined for a status the generic
 * hint fits (anything below 400, and an MCP message's 4xx other than 400/422: see `of`).
 */
export function upstreamStatusAdvice(status: number, options: StatusAdviceOptions = {}): StatusAdvice | undefined {
  const wait = retryAfterSeconds(options.retryAfter, options.now);
  const rateLimited = status === 403 && options.rateLimited === true;
  const details = { status, ...(wait !== undefined ? { retryAfterSeconds: wait } : {}), ...(rateLimited ? { rateLimited: true as const } : {}) };
  if (status === 429 || rateLimited) {
    return { hint: `The service is rate limiting these calls (HTTP ${status}); the arguments and the tool are fine, do not change them. ${waitWords(wait)}.`, details };
  }
  if (status === 408 || status === 425) {
    return { hint: `The service asked for this request to be sent again (HTTP ${status}); the arguments are probably fine. ${waitWords(wait)}.`, details };
  }
  if (status === 502 || status === 503 || status === 504) {
    return { hint: `The service is temporarily unavailable (HTTP ${status}); the arguments are probably fine. ${waitWords(wait)}; if it still fails after a few tries, tell the user.`, details };
  }
  if (status >= 500 && status <= 599) {
    return { hint: `The service failed on its side (HTTP ${status}); the arguments are probably fine. Send the same call again once; if it fails the same way, report \`message\` to the user rather than changing the arguments.`, details };
  }
  if (status < 400 || status > 499) return undefined;
  if (options.of === "message" && status !== 400 && status !== 422) return undefined;
  return { hint: refusalHint(status), details };
}

/**
 * Whether an error's `details` say the service refused the request (a 4xx but 408, 425 and 429,
 * not a rate-limited 403): the same call gets the same refusal, so repeating it unchanged is a
 * loop, not a retry (loop-breaker.ts).
 */
export function retryCannotFix(details: Record<string, unknown> | undefined): boolean {
  const status = details?.status;
  return typeof status === "number" && status >= 400 && status <= 499 && !SEND_AGAIN.has(status) && details?.rateLimited !== true;
}
