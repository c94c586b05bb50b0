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
  /**
   * What the client declared but cannot be asked in this call, and why (its connection cannot
   * carry a request mid-call): a refusal then says so, not that it declared nothing.
   */
  unreachable?: { elicitation: boolean; sampling: boolean; why: string };
  /**
   * Why no question can reach the agent's client in this call whatever it declared, when what it
   * declared is not known here (a 2025-era HTTP request without Mcp-Session-Id), and what would let
   * it be asked: a refusal then says so, not that the client declared nothing.
   */
  unaskable?: Unaskable;
}

/** See CallRelay.unaskable: `why` reads after "cannot reach the agent's client:", `fix` after "Tell the user:". */
export interface Unaskable {
  why: string;
  fix: string;
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
 * A downstream server's question for the user as the user reads it: its message prefixed with
 * the plugin that asks ("Plugin 'evil' asks: …"), form and URL mode alike. Relayed unlabelled, a
 * third-party server could copy the runtime's own confirmation wording ("Allow plugin 'victim' to
 * run 'delete_all'? … Also enter your API key") and the user could not tell who asks. The
 * runtime's own questions start "Allow plugin" (confirm.ts renderQuestion), never "Plugin '…'
 * asks:", and do not pass through here. `plugin`: the plugin's prefix, which the user chose.
 */
export function askedByPlugin(plugin: string, params: RelayedParams): RelayedParams {
  const message = typeof params.message === "string" ? params.message : "";
  return { ...params, message: `Plugin '${plugin}' asks: ${message}` };
}

/**
 * A downstream server's sampling request as the agent's client gets it: `includeContext` reset
 * to "none". The runtime declared no `sampling.context` to the server, and seen from the agent's
 * client "thisServer" is agent-tools, every plugin's context (other servers' results, their
 * users' data); "allServers" is more still. A server is not told more than its own prompt.
 */
export function withoutServerContext(params: RelayedParams): RelayedParams {
  return params.includeContext === undefined || params.includeContext === "none" ? params : { ...params, includeContext: "none" };
}

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

/** Why a downstream question could not be forwarded, in words the downstream server passes on. `relay`: the call's, when known. */
export function refusal(kind: "elicitation" | "sampling", relay?: CallRelay): string {
  if (relay?.unaskable) return `the runtime cannot ask the agent's ${kind === "elicitation" ? "user" : "model"}: ${relay.unaskable.why}; this request was refused`;
  const unreachable = relay?.unreachable;
  if (unreachable?.[kind]) return `the agent's client declared ${kind}, but ${unreachable.why}, so the runtime cannot ask its ${kind === "elicitation" ? "user" : "model"}; this request was refused`;
  return kind === "elicitation"
    ? "the agent's client did not declare elicitation, so the runtime cannot ask its user; this request was refused"
    : "the agent's client did not declare sampling, so the runtime cannot ask its model; this request was refused";
}

/**
 * Why a downstream question that belongs to no call was not forwarded: the runtime can ask the
 * agent's user or model only through a call's own request (the client answers questions inside
 * it), whatever the client declared. `inFlight`: the calls in flight on that server.
 */
export function noCallRefusal(kind: "elicitation" | "sampling", inFlight: number): string {
  const when = inFlight === 0 ? "while no call of this server was in flight" : "outside the calls in flight on this server (it named none of them)";
  return `the ${kind} request arrived ${when}, so there is no request of the agent's client to relay it through and the runtime cannot ask its ${kind === "elicitation" ? "user" : "model"}; ask only while answering a call. This request was refused`;
}

/** The modes of `modes` that are declared, in a fixed order. */
function declaredModes(modes: ElicitModes | undefined): (keyof ElicitModes)[] {
  return modes ? (Object.keys(modes) as (keyof ElicitModes)[]).filter((m) => modes[m]) : [];
}

/**
 * Why a question in a mode the agent's client did not declare was not forwarded (it could not
 * show it). `modes`: what the client did declare, when known; then the words say so, since "did
 * not declare elicitation" would be false of a client that declared the other mode.
 */
export function modeRefusal(mode: keyof ElicitModes, modes?: ElicitModes): string {
  const declared = declaredModes(modes);
  const what = declared.length ? `the agent's client declared elicitation only for ${declared.join(" and ")} mode` : `the agent's client did not declare ${mode}-mode elicitation`;
  return `${what}, so the runtime cannot show its user a ${mode}-mode request; this request was refused`;
}

/**
 * The refusal a downstream server gets for a question in a mode its caller did not declare: the
 * words of modeRefusal, and the mode it could ask in instead (a server may have both).
 */
export function modeRefusalToServer(mode: keyof ElicitModes, modes: ElicitModes): string {
  const declared = declaredModes(modes);
  return `${modeRefusal(mode, modes)}${declared.length ? `; ask in ${declared.join(" or ")} mode instead` : ""}`;
}

/** What the agent can do when a tool needed its client to answer what it cannot: tell the user which client can. */
const CAPABILITY_HINTS = {
  form: "This tool asks its user to fill in a form, which the agent's client cannot show (it declared elicitation for URL mode only). Tell the user: the tool works from a client that declares form elicitation (capabilities.elicitation.form), or use another tool that does not ask.",
  url: "This tool sends its user to a URL, which the agent's client cannot show (it declared elicitation for form mode only). Tell the user: the tool works from a client that declares URL elicitation (capabilities.elicitation.url), or use another tool that does not ask.",
  elicitation: "This tool asks its user a question, which the agent's client cannot show (it declared no elicitation). Tell the user: the tool works from a client that declares elicitation, or use another tool that does not ask.",
  sampling: "This tool asks the agent's model for a completion, which the agent's client cannot give (it declared no sampling). Tell the user: the tool works from a client that declares sampling, or use another tool.",
} as const;

/**
 * The hint for a call whose downstream needed `need`, which the agent's client had not declared,
 * or (`relay`, the call's) had declared but cannot be asked over its connection.
 */
export function capabilityHint(need: keyof typeof CAPABILITY_HINTS, relay?: CallRelay): string {
  const unreachable = relay?.unreachable;
  const kind = need === "sampling" ? "sampling" : "elicitation";
  const what = kind === "elicitation" ? "asks its user a question" : "asks the agent's model for a completion";
  if (relay?.unaskable) return `This tool ${what}, which cannot reach the agent's client: ${relay.unaskable.why}. Tell the user: ${relay.unaskable.fix}; or use another tool that does not ask.`;
  if (!unreachable?.[kind]) return CAPABILITY_HINTS[need];
  return `This tool ${what}, which cannot reach the agent's client: ${unreachable.why}. Tell the user: the tool can ask when the client connects with \`Accept: text/event-stream\` before \`application/json\` (answers over SSE) or speaks the 2026-07-28 protocol; or use another tool that does not ask.`;
}

/**
 * The refusal for a 2026-07-28 server's MissingRequiredClientCapability error, for the agent: it
 * names what the server needed (`requiredCapabilities`), which this call's client had not
 * declared, and what the client did declare (`relay`, the call's: a url-only client asked a form
 * question did declare elicitation), with the hint of what to do.
 */
export function missingCapabilityRefusal(data: unknown, message: string, relay: CallRelay | undefined): { why: string; hint: string } {
  const required = (data as { requiredCapabilities?: Record<string, unknown> } | undefined)?.requiredCapabilities;
  if (required?.sampling !== undefined || (!required && /sampling/i.test(message))) return { why: refusal("sampling", relay), hint: capabilityHint("sampling", relay) };
  const elicitation = required?.elicitation;
  const modes = relayElicitModes(relay);
  // The mode the server needed: url when it says so, else form (a bare requirement is form, as
  // in a bare declaration).
  const mode = elicitation && typeof elicitation === "object" && "url" in elicitation && !("form" in elicitation) ? "url" : "form";
  if (modes && !modes[mode]) return { why: modeRefusal(mode, modes), hint: CAPABILITY_HINTS[mode] };
  // No elicitation declared at all (the downstream was told none): the plain refusal; a url
  // question still names its mode.
  return { why: mode === "url" && !relay?.unreachable?.elicitation && !relay?.unaskable ? modeRefusal("url") : refusal("elicitation", relay), hint: capabilityHint("elicitation", relay) };
}
