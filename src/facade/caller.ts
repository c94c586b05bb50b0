import type { AuthInfo, ServerContext } from "@modelcontextprotocol/server";
import { identityKey, type Identity } from "../runtime/access.js";

/**
 * Who sent a request, as the transport verified it. The HTTP server passes a team identity as the
 * request's `authInfo` (clientId = the identity's name, extra.identity = the identity), which the
 * SDK hands to the factory and to handlers.
 */
export function identityFromAuth(authInfo: AuthInfo | undefined): Identity | undefined {
  const identity = (authInfo?.extra as { identity?: unknown } | undefined)?.identity;
  return identity && typeof identity === "object" && typeof (identity as Identity).name === "string" ? (identity as Identity) : undefined;
}

/** The caller's name ("" without one): what a caller's share of held calls is counted by and named with. */
export function callerName(ctx: ServerContext): string {
  const authInfo = ctx.http?.authInfo;
  return identityFromAuth(authInfo)?.name ?? authInfo?.clientId ?? "";
}

/**
 * The caller's whole identity as one key ("" without one): what a modern session and a
 * confirmation's requestState (which also resumes a held call) are bound to. The whole identity, not its name: two JWTs of one
 * subject with different rights are two callers, so one never acts with the other's rights.
 */
export function identityOf(ctx: ServerContext): string {
  const authInfo = ctx.http?.authInfo;
  const identity = identityFromAuth(authInfo);
  return identity ? identityKey(identity) : (authInfo?.clientId ?? "");
}
