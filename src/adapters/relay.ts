import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What a downstream server sends while one of its calls is in flight, relayed to the agent's
 * client: progress, log messages, and requests for the user (elicitation) or the client's model
 * (sampling). The facade builds a CallRelay per call from what the client declared; an adapter
 * that hears such a message during the call hands it to the relay. A relay without `elicit` or
 * `sample` means the client cannot answer: the adapter refuses the downstream request clearly.
 */

export interface RelayedProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RelayedLog {
  level: string;
  logger?: string;
  data: unknown;
}

/** The JSON of an `elicitation/create` or `sampling/createMessage` request's params, and of its result. */
export type RelayedParams = Record<string, unknown>;
export type RelayedResult = Record<string, unknown>;

export interface CallRelay {
  progress?(update: RelayedProgress): void;
  log?(message: RelayedLog): void;
  /** Ask the agent's user (form or URL elicitation); absent when the client did not declare elicitation. */
  elicit?(params: RelayedParams, signal: AbortSignal): Promise<RelayedResult>;
  /** Ask the agent's client for a model completion; absent when the client did not declare sampling. */
  sample?(params: RelayedParams, signal: AbortSignal): Promise<RelayedResult>;
}

/**
 * The relay of the call being run, for downstream requests that arrive inside that call's async
 * context (the SDK's input_required driver fulfils a 2026-07-28 server's questions there:
 * LenientClient runs it in the context of the request it answers). Questions that arrive from
 * outside (a 2025-era server's own request on its connection) go to the connection's only call
 * in flight, and are refused when there are several (see McpConnection).
 */
export const currentRelay = new AsyncLocalStorage<CallRelay>();

/**
 * What the runtime's MCP client declares it can pass on to the agent: its connection-wide
 * capabilities (a 2025-era server reads only those, from initialize).
 */
export const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} } as const;

/**
 * What one call can really pass on, for a 2026-07-28 server (it reads capabilities per request):
 * only what this call's client declared. Without it, a server that confirms writes by asking the
 * user (another agent-tools runtime, for one) would ask a question no one can answer, and the
 * call would fail on the relay's refusal instead of going by the caller's own `confirm`.
 */
export function relayedCapabilities(relay: CallRelay | undefined): { elicitation?: (typeof RELAYED_CAPABILITIES)["elicitation"]; sampling?: (typeof RELAYED_CAPABILITIES)["sampling"] } {
  return { ...(relay?.elicit ? { elicitation: RELAYED_CAPABILITIES.elicitation } : {}), ...(relay?.sample ? { sampling: RELAYED_CAPABILITIES.sampling } : {}) };
}

/** Why a downstream question could not be forwarded, in words the downstream server passes on. */
export function refusal(kind: "elicitation" | "sampling"): string {
  return kind === "elicitation"
    ? "the agent's client did not declare elicitation, so the runtime cannot ask its user; this request was refused"
    : "the agent's client did not declare sampling, so the runtime cannot ask its model; this request was refused";
}
