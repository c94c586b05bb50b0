import { anySignal } from "../any-signal.js";
import type { ElicitRequestFormParams, LoggingLevel, Server, ServerContext } from "@modelcontextprotocol/server";
import { elicitationModes, type CallRelay, type RelayedParams, type RelayedProgress, type RelayedResult, type Unaskable } from "../adapters/relay.js";
import { clientCapabilitiesOf } from "./confirm-rounds.js";
import { nodeCrypto } from "../node-crypto.js";
import { RelayedLogBudget } from "./relayed-log-budget.js";
import { RelayedProgressPacer } from "./relayed-progress.js";

/** A 2026-07-28 request: it carries the per-request envelope (a 2025-era one never does). */
export function isModernRequest(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope !== undefined && Object.keys(envelope).length > 0;
}

/**
 * The relay of one facade call: what the downstream server sends while the call runs goes to
 * the agent's client, as that client can take it.
 *  - progress: on the client's own progressToken, when the request carried one, at the pace of
 *    the request's RelayedProgressPacer (past it the latest step waits its turn in place of the last);
 *  - log messages: through the request's log (the client's level filter applies; a 2026-07-28
 *    request gets them only when it set a log level), within the request's RelayedLogBudget;
 *  - elicitation and sampling: forwarded as real requests on a 2025-era connection whose client
 *    declared the capability (and whose transport can carry them mid-call). A 2026-07-28 client
 *    that declared them gets them as input_required rounds of a held call instead (held-calls.ts;
 *    the facade builds that relay); one that did not gets the refusal.
 */
export function relayFor(server: Server, ctx: ServerContext, canAsk: boolean, unaskable?: Unaskable): CallRelay & { sent(): Promise<void> | undefined } {
  const token = ctx.mcpReq._meta?.progressToken;
  const modern = isModernRequest(ctx);
  const capabilities = clientCapabilitiesOf(server, ctx);
  // Notifications still being written: the answer waits for them, or a progress step that
  // arrived with the downstream's result (one read under load) would reach the client after the
  // answer, when the client has stopped listening for that token.
  const writing = new Set<Promise<unknown>>();
  const track = (sending: Promise<unknown>): void => {
    const done = sending.catch(() => undefined).finally(() => writing.delete(done));
    writing.add(done);
  };
  const drained = async (): Promise<void> => {
    while (writing.size) await Promise.all([...writing]);
  };
  // A downstream's log messages past the budget are dropped; the answer is preceded by one line
  // saying how many (relayed-log-budget.ts). Made on the first message: most calls relay none, and
  // this runs on every call of the facade's fast lanes. Its buckets start full either way.
  let logBudget: RelayedLogBudget | undefined;
  // Made on the first step, as the log budget.
  let pacer: RelayedProgressPacer | undefined;
  const relay: CallRelay & { sent(): Promise<void> | undefined } = {
    log: (message) => {
      if ((logBudget ??= new RelayedLogBudget()).take(message.data)) track(ctx.mcpReq.log(message.level as LoggingLevel, message.data, message.logger));
    },
    sent: () => {
      // The step held for its turn goes before the answer: the client's last step is the call's.
      pacer?.flush();
      const dropped = logBudget?.droppedLine();
      if (dropped) track(ctx.mcpReq.log("warning", dropped, "agent-tools"));
      // undefined when nothing is being written (the usual call): no promise to wait on.
      return writing.size ? drained() : undefined;
    },
  };
  if (token !== undefined) {
    const send = (update: RelayedProgress): void =>
      track(ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: update.progress, ...(update.total !== undefined ? { total: update.total } : {}), ...(update.message ? { message: update.message } : {}) } }));
    relay.progress = (update) => (pacer ??= new RelayedProgressPacer(send)).push(update);
  }
  const modes = elicitationModes(capabilities?.elicitation);
  // A question is withdrawn when the downstream withdraws it (`signal`) and when the client cancels
  // the call it was asked for (the call's own signal): the SDK's request then sends the client
  // notifications/cancelled for it, so the client stops showing a question nobody waits for.
  const whileAsked = (signal: AbortSignal): AbortSignal => anySignal([signal, ctx.mcpReq.signal]);
  if (!modern && canAsk && modes) {
    relay.elicitModes = modes;
    relay.elicit = async (params: RelayedParams, signal: AbortSignal): Promise<RelayedResult> =>
      (await ctx.mcpReq.elicitInput(withElicitationId(params) as unknown as ElicitRequestFormParams, { signal: whileAsked(signal), timeout: 600_000, resetTimeoutOnProgress: true })) as unknown as RelayedResult;
  }
  if (!modern && canAsk && capabilities?.sampling) {
    relay.sample = async (params: RelayedParams, signal: AbortSignal): Promise<RelayedResult> =>
      (await ctx.mcpReq.requestSampling(params as never, { signal: whileAsked(signal), timeout: 600_000 })) as unknown as RelayedResult;
  }
  // Not known what the client declared, and it could not be asked anyway: a refusal says why and how to fix it.
  if (!canAsk && unaskable) relay.unaskable = unaskable;
  // Declared, but this connection cannot carry the request: a refusal says that, not "did not declare".
  else if (!canAsk && (modes || capabilities?.sampling)) {
    relay.unreachable = { elicitation: modes !== undefined, sampling: Boolean(capabilities?.sampling), why: "its connection cannot carry a request mid-call (a 2025-era HTTP session answering in JSON)" };
  }
  return relay;
}

/**
 * A URL-mode question as a 2025-era client must get it: that era requires an `elicitationId`,
 * which a 2026-07-28 server's URL question does not carry (its era dropped it). One is made up;
 * no completion notification will name it, which a 2025 client takes as "not told".
 */
function withElicitationId(params: RelayedParams): RelayedParams {
  if (params.mode !== "url" || typeof params.elicitationId === "string") return params;
  return { ...params, elicitationId: nodeCrypto().randomUUID() };
}
