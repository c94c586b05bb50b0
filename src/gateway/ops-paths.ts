/**
 * The operations paths and who may read them. All pass the transport's Host and Origin checks
 * first. `probe`: health and readiness, token-free because balancers probe them without one, so
 * they say nothing but status; a probe may omit Host (HAProxy's `option httpchk` sends HTTP/1.0).
 * `metadata`: RFC 9728 resource metadata, public by design (a client reads it to learn where to
 * get a token). `metrics`: names plugins and identities, so it needs a token when one is configured.
 */
const OPS_PATHS = new Map<string, OpsAccess>([
  ["/metrics", "metrics"],
  ["/healthz", "probe"],
  ["/readyz", "probe"],
  ["/.well-known/oauth-protected-resource", "metadata"],
]);

export type OpsAccess = "metrics" | "probe" | "metadata";

/** Which kind of operations path `pathname` is; undefined for any other path. */
export function opsAccessOf(pathname: string): OpsAccess | undefined {
  return OPS_PATHS.get(pathname);
}

/**
 * The Retry-After (seconds) of every 503 a draining instance answers (/readyz, a new session or
 * workspace): one value, so a client and a balancer are told the same wait. Short: the balancer
 * sends the retry to another instance.
 */
export const DRAINING_RETRY_AFTER = "1";
