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
  /**
   * The elicitation modes the agent's client declared, which are the only ones `elicit` may be
   * asked in. Absent beside `elicit`: form only (what a bare `elicitation: {}` declares).
   */
  elicitModes?: ElicitModes;
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

/** Which elicitation modes a client can show its user. */
export interface ElicitModes {
  form: boolean;
  url: boolean;
}

/**
 * The modes a client's declared `elicitation` capability stands for, read as the spec and the
 * SDK read it: a mode is declared by its key, and a bare `elicitation: {}` (the pre-mode shape)
 * means form only. Undefined when the client declared no elicitation at all.
 */
export function elicitationModes(declared: unknown): ElicitModes | undefined {
  if (!declared || typeof declared !== "object" || Array.isArray(declared)) return undefined;
  const form = "form" in declared;
  const url = "url" in declared;
  return { form: form || !url, url };
}

/** The modes of a relay's `elicit`; undefined when it cannot ask at all. */
export function relayElicitModes(relay: CallRelay | undefined): ElicitModes | undefined {
  if (!relay?.elicit) return undefined;
  return relay.elicitModes ?? { form: true, url: false };
}

/** The mode of one `elicitation/create` request's params: form unless it says url (the spec's default). */
export function elicitModeOf(params: unknown): keyof ElicitModes {
  return (params as { mode?: unknown } | undefined)?.mode === "url" ? "url" : "form";
}

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
export function relayedCapabilities(relay: CallRelay | undefined): { elicitation?: { form?: Record<string, never>; url?: Record<string, never> }; sampling?: (typeof RELAYED_CAPABILITIES)["sampling"] } {
  // Exactly the modes the caller declared, each by its key: a downstream told `url` would send a
  // URL question a form-only caller cannot show.
  const modes = relayElicitModes(relay);
  const elicitation = modes && (modes.form || modes.url) ? { ...(modes.form ? { form: {} } : {}), ...(modes.url ? { url: {} } : {}) } : undefined;
  return { ...(elicitation ? { elicitation } : {}), ...(relay?.sample ? { sampling: RELAYED_CAPABILITIES.sampling } : {}) };
}

/** Why a downstream question could not be forwarded, in words the downstream server passes on. */
export function refusal(kind: "elicitation" | "sampling"): string {
  return kind === "elicitation"
    ? "the agent's client did not declare elicitation, so the runtime cannot ask its user; this request was refused"
    : "the agent's client did not declare sampling, so the runtime cannot ask its model; this request was refused";
}

/**
 * Why a question in a mode the agent's client did not declare was not forwarded (it could not
 * show it). `modes`: what the client did declare, when known.
 */
export function modeRefusal(mode: keyof ElicitModes, modes?: ElicitModes): string {
  const declared = modes ? (Object.keys(modes) as (keyof ElicitModes)[]).filter((m) => modes[m]) : [];
  const instead = declared.length ? ` (it declared only ${declared.map((m) => `${m}-mode`).join(" and ")} elicitation; ask in ${declared.join(" or ")} mode instead)` : "";
  return `the agent's client did not declare ${mode}-mode elicitation, so the runtime cannot show its user a ${mode}-mode request; this request was refused${instead}`;
}

/**
 * The refusal for a 2026-07-28 server's MissingRequiredClientCapability error: it names what
 * it needed (`requiredCapabilities`), which this call's client had not declared.
 */
export function missingCapabilityRefusal(data: unknown, message: string): string {
  const required = (data as { requiredCapabilities?: Record<string, unknown> } | undefined)?.requiredCapabilities;
  if (required?.sampling !== undefined || (!required && /sampling/i.test(message))) return refusal("sampling");
  const elicitation = required?.elicitation;
  // A form question is refused only to a client that declared no elicitation (or url alone, rare):
  // the plain refusal fits. A url one is refused to a form-only client: name the mode.
  if (elicitation && typeof elicitation === "object" && "url" in elicitation) return modeRefusal("url");
  return refusal("elicitation");
}
