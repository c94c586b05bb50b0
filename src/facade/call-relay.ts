import type { ElicitRequestFormParams, LoggingLevel, Server, ServerContext } from "@modelcontextprotocol/server";
import type { CallRelay, RelayedParams, RelayedResult } from "../adapters/relay.js";
import { clientCapabilitiesOf } from "./confirm-rounds.js";

/**
 * The relay of one facade call: what the downstream server sends while the call runs goes to
 * the agent's client, as that client can take it.
 *  - progress: on the client's own progressToken, when the request carried one;
 *  - log messages: through the request's log (the client's level filter applies; a 2026-07-28
 *    request gets them only when it set a log level);
 *  - elicitation and sampling: forwarded as real requests on a 2025-era connection whose client
 *    declared the capability (and whose transport can carry them mid-call). A 2026-07-28 client
 *    gets a refusal that says so: relaying a downstream question across input_required rounds
 *    would need the downstream call held open between two requests (not built; see the notes).
 */
export function relayFor(server: Server, ctx: ServerContext, canAsk: boolean): CallRelay {
  const token = ctx.mcpReq._meta?.progressToken;
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope !== undefined && Object.keys(envelope).length > 0;
  const capabilities = clientCapabilitiesOf(server, ctx);
  const relay: CallRelay = {
    log: (message) => void ctx.mcpReq.log(message.level as LoggingLevel, message.data, message.logger).catch(() => undefined),
  };
  if (token !== undefined) {
    relay.progress = (update) =>
      void ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: update.progress, ...(update.total !== undefined ? { total: update.total } : {}), ...(update.message ? { message: update.message } : {}) } }).catch(() => undefined);
  }
  if (!modern && canAsk && capabilities?.elicitation) {
    relay.elicit = async (params: RelayedParams, signal: AbortSignal): Promise<RelayedResult> =>
      (await ctx.mcpReq.elicitInput(params as unknown as ElicitRequestFormParams, { signal, timeout: 600_000, resetTimeoutOnProgress: true })) as unknown as RelayedResult;
  }
  if (!modern && canAsk && capabilities?.sampling) {
    relay.sample = async (params: RelayedParams, signal: AbortSignal): Promise<RelayedResult> =>
      (await ctx.mcpReq.requestSampling(params as never, { signal, timeout: 600_000 })) as unknown as RelayedResult;
  }
  return relay;
}
