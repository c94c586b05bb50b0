import { Client, InsufficientScopeError, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, type DiscoverResult, type PriorDiscovery, type RequestOptions } from "@modelcontextprotocol/client";
import type { CredentialSource } from "./bearer-auth.js";
import { mcpEndpointMeaning, settingAt, settingsAt, type Logger, type ServerDescription, type SettingsLocation } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { ResponseTooLargeError } from "../shared/capped-body.js";
import { PassingOutputValidator } from "./output-check.js";
import { ExitedWhileStarting, McpAdapterError, ProbeAnsweredLate, UnsupportedServerVersion, isRequestTimeout, isUnsupportedProtocolVersion, errorMessage, numericCode, quotedServerText } from "./errors.js";
import { causeCodes, couldNotReach, isUnresolvedHost, unreachableCode, unresolvedHostHint } from "../shared/errors.js";
import { LenientClient } from "./lenient-handshake.js";
import type { ToolCallLane } from "./call-lane.js";
import { Cancel, type Cancellation } from "../../cancel.js";
import { askedByPlugin, capabilityHint, currentRelay, elicitModeOf, missingCapabilityRefusal, modeRefusalToServer, noCallRefusal, refusal, RELAYED_CAPABILITIES, relayElicitModes, withoutServerContext, type CallRelay, type RelayedParams } from "../relay.js";
import { asPromise } from "../../as-promise.js";
import { retryCannotFix, upstreamStatusAdvice } from "../shared/upstream-status.js";
import { RetryAfterHttpError } from "./retry-after.js";
import { AnswerStreamLost } from "./answer-watching-http.js";
import { OVERSIZED_ANSWER } from "./group-stdio-transport.js";
import { bodyRpcError, INVALID_PARAMS, refusesSessionId } from "./http-refusal.js";
import { listenForToolChanges } from "./list-changes.js";
import { notMcpReply } from "./not-mcp-reply.js";
import { MAX_PAGES } from "./tools-list-walk.js";
import { refusedUnsent } from "../../batched-writes.js";
import { ASK_FOR_LESS } from "../../ask-for-less.js";
import { isListing, listingFailureHint, listingRefusedHint } from "./listing-failure.js";

/**
 * One logical connection to an MCP server: connected on first use, reconnected after the server
 * went away (crash, idle stop, expired HTTP session), stopped when idle. Every request runs under
 * a deadline and the caller's abort signal; failures become McpAdapterError with a `code`.
 */

/** What a transport opener returns once the client is connected. */
export interface OpenedTransport {
  /** "stdio", "streamable-http" or "sse". */
  kind: string;
  /** The child process id (stdio only). */
  pid?: number;
  /** The HTTP session id, when the server gave one. */
  sessionId?(): string | undefined;
  /** Recent diagnostics (a stdio server's last stderr lines). */
  diagnostics?(): string;
  /** How the stdio child ended ("exited with code 9"), once it has; undefined while it runs. */
  ended?(): string | undefined;
  /** The tools/call fast lane on this connection (stdio; call-lane.ts), unless turned off. */
  lane?: ToolCallLane;
  /**
   * Readies what a request needs before it is handed to the SDK, under the caller's cancellation:
   * an HTTP server's OAuth token, whose refresh may wait for another process's lock on the store.
   * Inside the SDK's fetch that wait cannot hear a call's cancel (a 2025-era request's fetch gets
   * only the connection's signal), and a request cancelled there would still be sent once the lock
   * was free, the token endpoint called for nobody. Here a cancel ends the wait before anything is
   * sent, with the caller's own answer (cancelled, or its deadline).
   */
  prepare?(cancel: Cancellation | undefined): Promise<unknown>;
  /** Stop: close the connection; for stdio wait for the child to exit (killing it after a grace period). */
  close(): Promise<void>;
}

/**
 * What an opener passes to `client.connect`: the request options and, when known, the era verdict
 * of the last connect. `closing` is aborted when the connection is closed while this start is
 * under way: the opener then ends the start at once (stops what it spawned) rather than letting
 * the handshake run on (a wrapper still installing may take a minute).
 */
export type ConnectOptions = RequestOptions & { prior?: PriorDiscovery; closing?: AbortSignal };

/** Connect `makeClient()` to the server (trying fallbacks as needed) and return the connected client. */
export type TransportOpener = (makeClient: () => Client, options: ConnectOptions) => Promise<{ client: Client; opened: OpenedTransport }>;

/** Why the last connect failed, and when the next one may be tried. */
export interface ConnectFailure {
  message: string;
  code: string;
  /** The failure's own hint (the depth guard's, runtime-depth.ts): said again while the start is not retried. */
  hint?: string;
  /** Its details (the HTTP status a server refused the start with): said again too, so the answer does not change shape. */
  details?: Record<string, unknown>;
  /** The HTTP status the start was refused with, if any. */
  status?: number;
  at: number;
  retryAt: number;
  /** Starts that failed in a row: every process (stdio) or connection (HTTP) opened, one per era tried. */
  attempts: number;
}

/**
 * What an error already translated carries on when it is said again (re-thrown by translate, or
 * repeated while a failed start is not retried): its status, its own hint (not the code's
 * generic one) and its details.
 */
function carriedOptions(from: McpAdapterError | ConnectFailure): { status?: number; hint?: string; details?: Record<string, unknown> } {
  const hint = from instanceof McpAdapterError ? (from.hasOwnHint ? from.hint : undefined) : from.hint;
  return { ...(from.status !== undefined ? { status: from.status } : {}), ...(hint !== undefined ? { hint } : {}), ...(from.details !== undefined ? { details: from.details } : {}) };
}

/** Back off 1 s, 2 s, 4 s … up to a minute between starts of a server that fails to connect. */
/** `details.retryAfterSeconds` of a failure (upstream-status.ts), if the server sent a Retry-After. */
function retryAfterOf(details: Record<string, unknown> | undefined): number | undefined {
  const seconds = details?.retryAfterSeconds;
  return typeof seconds === "number" ? seconds : undefined;
}

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

export interface ConnectionOptions {
  /** Used in messages: "MCP server 'fs'". */
  name: string;
  open: TransportOpener;
  /** 0 disables the idle stop. */
  idleTimeoutMs: number;
  log: Logger;
  redactor: Redactor;
  /** Called on every `notifications/tools/list_changed`. */
  onToolsChanged: () => void;
  /** Where the server's settings are written, for hints that say what to change. */
  settings?: SettingsLocation;
  /** Where its credentials come from (bearer-auth.ts describeCredentials), for the answer to a 401 or 403. */
  credentials?: () => CredentialSource;
  /**
   * How long the era probe (server/discover) may take; past it a stdio server counts as 2025-era.
   * The SDK's probe does not follow the caller's abort signal, so it gets the call deadline.
   */
  probeTimeoutMs?: number;
  /** The clock of the connect backoff (tests). */
  now?: () => number;
}

export interface RequestControl {
  timeoutMs: number;
  /** The caller's cancellation; a Cancel makes its AbortSignal only when the SDK path reads `options.signal` (cancel.ts). */
  signal?: Cancellation;
  /** The call's relay: a refusal for what its client cannot answer names what that client did declare. */
  relay?: CallRelay;
}

/** The SDK's request options for `control`: for a Cancel, `signal` is read through (made on first read). */
function requestOptions(control: RequestControl): RequestOptions {
  const source = control.signal;
  if (!source) return { timeout: control.timeoutMs };
  if (!(source instanceof Cancel)) return { signal: source, timeout: control.timeoutMs };
  return {
    get signal() {
      return source.signal;
    },
    timeout: control.timeoutMs,
  };
}

/** What a request runs against the connected client. */
type RequestFn<T> = (client: Client, options: RequestOptions, lane: ToolCallLane | undefined) => Promise<T>;

interface Live {
  client: Client;
  opened: OpenedTransport;
  gone: boolean;
}

const CLIENT_INFO = { name: "agent-tools-runtime", version: "0.1.0" };

/** The verdict of a 2025-era server: the connect goes straight to `initialize`. */
const LEGACY: PriorDiscovery = { kind: "legacy" };

/**
 * The era verdict worth keeping from a connected client: a modern server's discover result (the
 * next connect adopts it and skips the probe, and on stdio the probe's extra process), or that
 * the server is legacy (the next connect goes straight to initialize).
 */
function verdictOf(client: Client): PriorDiscovery | undefined {
  const era = client.getProtocolEra();
  if (era === "legacy") return { kind: "legacy" };
  const discover = client.getDiscoverResult();
  return era === "modern" && discover ? { kind: "modern", discover } : undefined;
}

/** A kept verdict read back from a cache: `{kind: "legacy"}` or `{kind: "modern", discover: {supportedVersions: [...], ...}}`. */
export function isPriorDiscovery(value: unknown): value is PriorDiscovery {
  if (!value || typeof value !== "object") return false;
  const v = value as { kind?: unknown; discover?: { supportedVersions?: unknown } };
  if (v.kind === "legacy") return true;
  return v.kind === "modern" && !!v.discover && typeof v.discover === "object" && Array.isArray(v.discover.supportedVersions);
}

/** The era probe died with the connection (the server exited on it); not a failed start of a 2026 server. */
function isProbeCasualty(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /Version negotiation failed/i.test(error.message) && !/pinned|overlap/i.test(error.message);
}

/** A connect refused because the kept verdict no longer holds (the server changed era). */
function isStaleVerdict(error: unknown): boolean {
  return (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) || isUnsupportedProtocolVersion(error);
}

/**
 * The SDK's message for a failed first request, in the words the runtime's errors use: "Version
 * negotiation probe failed" is the SDK's name for the protocol-version check every connection
 * starts with, which says nothing to a user.
 */
function ourWords(message: string): string {
  return message.replace(/^Version negotiation probe failed\b:?\s*/, "could not connect during the protocol-version check: ");
}

/** System errors that say a connection could not be made at all: the request never reached the server. */
const REFUSED = new Set(["ECONNREFUSED"]);

/**
 * How the HTTP session the runtime holds was lost, or undefined: the server no longer knows it
 * (404, or a 400 whose body refuses the session id itself, as the SDK's example servers answer
 * after a restart: http-refusal.ts), or it refused the connection (it is down; whatever it held
 * for the session is gone with it). Either way the server refused the request before running
 * it, so it can be sent again on a new session. Any other 400 (bad arguments, a bad value) is
 * the server's answer to this call: the session stays, and the call is not sent again.
 */
function lostSession(error: unknown, live: Live): "forgotten" | "refused" | undefined {
  // Only a request that carried an Mcp-Session-Id can have had its session refused.
  if (live.opened.sessionId?.() === undefined) return undefined;
  if (error instanceof SdkHttpError) {
    if (error.status === 404) return "forgotten";
    if (error.status === 400 && refusesSessionId(error)) return "forgotten";
    return undefined;
  }
  return causeCodes(error).some((code) => REFUSED.has(code)) ? "refused" : undefined;
}

/**
 * A call whose connection went away before its answer arrived: it may have run (the request
 * reached the server), so its effect is unknown, and what to do about that depends on the tool.
 * A listing changes nothing: it is only a list that could not be read.
 */
function connectionLost(redact: (text: string) => string, message: string, what: string, detail = ""): McpAdapterError {
  if (isListing(what)) return new McpAdapterError("UPSTREAM_ERROR", redact(`${message}${detail}`), { hint: listingFailureHint("lost", what) });
  return new McpAdapterError("UPSTREAM_ERROR", redact(`${message}; whether ${what} took effect is unknown${detail}`), {
    hint: "Before calling a tool that changes something again, check whether the change was made (read it back); a read can simply be called again. If the server is down, the next call says so.",
  });
}

/**
 * Socket failures of a connection that was open when the request went out on it (the server was
 * killed, or the connection reset, before the answer came back), unlike ECONNREFUSED or
 * ENOTFOUND, where nothing was sent. Over HTTP a JSON-body answer that never came fails its fetch
 * with one of these (undici's "other side closed" is UND_ERR_SOCKET).
 */
const BROKEN_AFTER_SENDING = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * A tools/call whose request went out and whose connection then broke: the tool may have run (a
 * write made before the server died), so it is "effect unknown", not a plain failure that reads
 * as "fix the arguments" and invites a repeat. Other requests only read, and a connection that
 * was never made (unreachableCode) carried nothing.
 */
function brokeDuringToolCall(error: unknown, what: string): string | undefined {
  if (!what.startsWith("tools/call ")) return undefined;
  if (unreachableCode(error) !== undefined) return undefined;
  return causeCodes(error).find((code) => BROKEN_AFTER_SENDING.has(code));
}

/**
 * A request refused before it was sent: the transport was closed (the SDK's NotConnected), or the
 * stdio transport's own send found the server gone (NotSent: its process had exited, or the write
 * failed with nothing of it taken, batched-writes.ts).
 */
function isNotConnected(error: unknown): boolean {
  return refusedUnsent(error, { sdkNotConnected: true });
}

function abortReasonIsTimeout(reason: unknown): boolean {
  return reason instanceof Error && (reason.name === "TimeoutError" || (reason as { code?: unknown }).code === "UPSTREAM_TIMEOUT");
}

export class McpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private connectingSignal: AbortSignal | undefined;
  private inFlight = 0;
  private begun = 0;
  /** One idle timer per connection, not re-armed per call: when it fires it looks at `lastUsedAt`. */
  private idleTimer: NodeJS.Timeout | undefined;
  private idleLimitMs: number;
  private lastUsedAt = 0;
  private closed = false;
  /** Aborted by close(): a start under way is ended at once (ConnectOptions.closing), not waited for. */
  private readonly closingStarts = new AbortController();
  private stopping: Promise<void> = Promise.resolve();
  private verdict: PriorDiscovery | undefined;
  /**
   * The server's process exited before answering in both eras (the probe, then `initialize`): its
   * exit is not about the era, so its next starts are one run each, with `initialize` (a 2025-era
   * server that exits on the probe answers it; a modern-only one refuses it, and is probed then).
   * Cleared by a start that succeeds.
   */
  private exitsInBothEras = false;
  private failure: ConnectFailure | undefined;
  private readonly now: () => number;
  /** While a start is under way: when it began and the longest it may take (the server's timeoutMs). */
  private starting: { since: number; timeoutMs: number | undefined } | undefined;

  constructor(private readonly options: ConnectionOptions) {
    this.now = options.now ?? Date.now;
    this.idleLimitMs = options.idleTimeoutMs;
  }

  /** The server's `server/discover` result when it speaks 2026-07-28 (kept across restarts of the connection). */
  get discoverResult(): DiscoverResult | undefined {
    return this.verdict?.kind === "modern" ? this.verdict.discover : undefined;
  }

  /** "modern", "legacy", or undefined before the first connect. */
  get era(): "modern" | "legacy" | undefined {
    return this.verdict?.kind;
  }

  /** The last connect failure, while no connect has succeeded since. */
  get lastFailure(): ConnectFailure | undefined {
    return this.failure;
  }

  /** The era verdict a later connect (or a later run, through the catalog cache) adopts. */
  get keptVerdict(): PriorDiscovery | undefined {
    return this.verdict;
  }

  /** Adopt an era verdict kept elsewhere (a persisted catalog), so the first connect skips the probe. */
  rememberVerdict(verdict: PriorDiscovery | undefined): void {
    this.verdict = verdict;
  }

  /** The stdio child's pid while connected. */
  get pid(): number | undefined {
    return this.live && !this.live.gone ? this.live.opened.pid : undefined;
  }

  get connected(): boolean {
    return this.live !== undefined && !this.live.gone;
  }

  /** Connected, or a connect under way: some request has started the server. */
  get startedOrStarting(): boolean {
    return this.connected || this.connecting !== undefined;
  }

  /** Requests begun on this connection so far: tells a listing whether anything else used the server meanwhile. */
  get requestsBegun(): number {
    return this.begun;
  }

  /** Calls that took the tools/call fast lane on the current connection (diagnostics and tests); undefined without a lane. */
  get laneCalls(): number | undefined {
    return this.live && !this.live.gone ? this.live.opened.lane?.calls : undefined;
  }

  diagnostics(): string {
    return this.live?.opened.diagnostics?.() ?? "";
  }

  /** What the server said of itself in its initialize answer (serverInfo, instructions), while connected. */
  get serverInfo(): ServerDescription | undefined {
    const client = this.live && !this.live.gone ? this.live.client : undefined;
    const info = client?.getServerVersion();
    if (!client || !info) return undefined;
    const description = (info as { description?: unknown }).description;
    const instructions = client.getInstructions();
    return {
      name: info.name,
      version: info.version,
      ...(info.title ? { title: info.title } : {}),
      ...(typeof description === "string" && description ? { description } : {}),
      ...(instructions ? { instructions } : {}),
    };
  }

  /**
   * Stop the server after `ms` unless a request comes first (which brings back the normal idle
   * timeout): for a server started only to list its tools. A request in flight is a caller using
   * the server: it keeps the normal timeout (and a short limit would only poll during its call).
   */
  stopWhenIdleFor(ms: number): void {
    if (this.inFlight > 0) return;
    this.idleLimitMs = ms;
    this.lastUsedAt = performance.now();
    // The timer may be set for the longer normal timeout: set it again for this one.
    this.clearIdle();
    this.armIdle();
  }

  /**
   * Run `fn` against a connected client under the deadline and abort signal of `control`. `what`
   * names the request in messages ("tools/call 'read_file'"). No timer or AbortController of its
   * own per call: the SDK's request timeout is the deadline (it also tells the server the request
   * was cancelled), and the caller's signal (the pipeline's deadline scope) passes straight on.
   */
  request<T>(what: string, control: RequestControl, fn: RequestFn<T>): Promise<T> {
    if (this.closed) return Promise.reject(new McpAdapterError("UPSTREAM_ERROR", `${this.label()} is closed`));
    this.inFlight++;
    this.begun++;
    this.idleLimitMs = this.options.idleTimeoutMs;
    const options = requestOptions(control);
    const live = this.live;
    // The server is not up: the loop starts it (and retries an expired session once). A request
    // with something to ready first (prepare) goes through the loop too.
    if (!live || live.gone || live.opened.prepare) return this.attempts(0, what, control, fn, options).finally(this.requestDone);
    // The usual request, to a server that is up: callbacks instead of the loop's async frame kept
    // alive across every call (allocation per call); a failure joins the loop's handling.
    return asPromise(fn, live.client, options, live.opened.lane).then(
      (value) => {
        this.requestDone();
        return value;
      },
      (error: unknown) => this.afterFailure(error, 0, live, what, control, fn, options).finally(this.requestDone),
    );
  }

  /** Run `fn` against a connected client from attempt `first` on (a second attempt only after an expired session). */
  private async attempts<T>(attempt: number, what: string, control: RequestControl, fn: RequestFn<T>, options: RequestOptions): Promise<T> {
    let live: Live | undefined;
    try {
      live = await this.ensureLive(options);
      if (live.opened.prepare) await live.opened.prepare(control.signal);
      return await fn(live.client, options, live.opened.lane);
    } catch (error) {
      return await this.afterFailure(error, attempt, live, what, control, fn, options);
    }
  }

  /**
   * A failed attempt: a lost HTTP session (lostSession) is dropped, and the request repeated once
   * on a new one (it never ran on the old); anything else is translated and thrown.
   */
  private async afterFailure<T>(
    error: unknown,
    attempt: number,
    live: Live | undefined,
    what: string,
    control: RequestControl,
    fn: RequestFn<T>,
    options: RequestOptions,
  ): Promise<T> {
    const lost = live ? lostSession(error, live) : undefined;
    if (live && lost) {
      const why = lost === "refused" ? "refused the connection" : `no longer knows the session (HTTP ${numericCode(error)})`;
      // Every call on the old session meets the same: the first one drops it, the others share the new start.
      if (!live.gone) {
        this.options.log.info(`${this.label()}: ${why}; dropping the session and connecting again`);
        await this.drop(live);
      }
      if (attempt === 0 && !control.signal?.aborted) return this.attempts(attempt + 1, what, control, fn, options);
      if (lost === "forgotten" && !control.signal?.aborted && isListing(what)) {
        // Refused again on the session just opened for it: no session was lost, and calling again
        // opens another to meet the same. Said as the refused listing it is.
        const status = numericCode(error) ?? 400;
        throw new McpAdapterError("UPSTREAM_ERROR", this.options.redactor.redact(`${this.label()} answered ${what} with HTTP ${status}, again on a session it had just opened (${errorMessage(error)}): a refusal, not a lost session`), {
          status,
          hint: listingRefusedHint(what, status, this.options.settings),
        });
      }
      if (lost === "forgotten" && !control.signal?.aborted) {
        throw new McpAdapterError("UPSTREAM_ERROR", this.options.redactor.redact(`${this.label()} lost the session of ${what} (it restarted, or dropped the session: ${errorMessage(error)}); ${what} did not run there. The runtime dropped that session and starts a new one on the next call`), {
          status: numericCode(error) ?? 400,
          hint: "Call again: the next call connects to the server anew. Tool arguments cannot fix this.",
        });
      }
    }
    if (live && isNotConnected(error)) {
      // The connection was already gone when the request was to be sent (its close had not yet
      // been seen: the process had exited, or the write failed with nothing of it taken): the
      // request never left, so it is sent again, once, on a new start. Only then: a request whose
      // write had begun when the server's stdin closed fails with WriteInterrupted or the write's
      // own error (batched-writes.ts), never NotSent, since the server may have read and run it.
      if (!live.gone) {
        this.options.log.debug(`${this.label()}: not connected any more; connecting again`);
        await this.drop(live);
      }
      // Not after close(): a new start then would leave a server running past the runtime.
      if (attempt === 0 && !control.signal?.aborted && !this.closed) return this.attempts(attempt + 1, what, control, fn, options);
    }
    throw await this.translate(error, what, live, control);
  }

  private readonly requestDone = (): void => {
    this.inFlight--;
    this.lastUsedAt = performance.now();
    this.armIdle();
  };

  /** Stop the server (if running) and refuse further requests. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
    this.closingStarts.abort();
    const pending = this.connecting;
    if (pending) await pending.then((live) => this.drop(live), () => undefined);
    if (this.live) await this.drop(this.live);
    await this.stopping;
  }

  /** Stop the server now; the next request starts it again. */
  async stop(): Promise<void> {
    if (this.live) await this.drop(this.live);
    await this.stopping;
  }

  private label(): string {
    return `MCP server '${this.options.name}'`;
  }

  private async ensureLive(options: RequestOptions): Promise<Live> {
    for (;;) {
      if (this.live && !this.live.gone) return this.live;
      await this.stopping;
      if (!this.connecting) {
        const connecting = this.connect(options).finally(() => {
          if (this.connecting === connecting) this.connecting = undefined;
        });
        this.connecting = connecting;
        this.connectingSignal = options.signal;
      }
      // Concurrent first requests share one start; it runs under the first one's deadline and signal.
      const startedBy = this.connectingSignal;
      let live: Live;
      try {
        live = await this.connecting;
      } catch (error) {
        // Another request's cancellation stopped the shared start: start again for this one.
        if (startedBy !== options.signal && startedBy?.aborted && !options.signal?.aborted && !this.closed) continue;
        throw error;
      }
      if (this.closed) {
        await this.drop(live);
        throw new McpAdapterError("UPSTREAM_ERROR", `${this.label()} is closed`);
      }
      return live;
    }
  }

  private async connect(options: RequestOptions): Promise<Live> {
    const failure = this.failure;
    if (failure && this.now() < failure.retryAt) {
      // A server that failed to start is not started again on every call: the same answer until the backoff passes.
      const seconds = Math.max(1, Math.ceil((failure.retryAt - this.now()) / 1000));
      throw new McpAdapterError(failure.code === "NOT_CONFIGURED" ? "NOT_CONFIGURED" : "UPSTREAM_ERROR", `${failure.message} (not retried for ${seconds} s after ${failure.attempts} failed start${failure.attempts === 1 ? "" : "s"})`, {
        ...carriedOptions(failure),
        ...this.waitLeft(failure),
      });
    }
    let connected: { client: Client; opened: OpenedTransport };
    const starting = { since: performance.now(), timeoutMs: options.timeout };
    this.starting = starting;
    // Each opening is a start of its own (a process, a connection): the backoff counts them all.
    let runs = 0;
    const open: TransportOpener = (makeClient, connectOptions) => {
      runs++;
      return this.options.open(makeClient, connectOptions);
    };
    try {
      connected = await this.openWithVerdict(open, { ...options, closing: this.closingStarts.signal });
    } catch (error) {
      if (this.starting === starting) this.starting = undefined;
      if (this.closed) throw this.closedWhileStarting();
      if (!options.signal?.aborted) {
        const translated = this.startNotAnswered(await this.translate(error, "connect", undefined, { timeoutMs: 0 }));
        const attempts = (failure?.attempts ?? 0) + Math.max(1, runs);
        const at = this.now();
        const backoffMs = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));
        // A server that said how long to wait (Retry-After) is not asked again sooner, up to the backoff's own longest wait.
        const askedMs = Math.min(BACKOFF_MAX_MS, 1000 * (retryAfterOf(translated.details) ?? 0));
        this.failure = { message: translated.message, code: translated.code, ...carriedOptions(translated), at, attempts, retryAt: at + Math.max(backoffMs, askedMs) };
        // A start that timed out is said as what it is, the same on this call and the ones the backoff answers.
        if (translated !== error && isRequestTimeout(error)) throw translated;
      }
      throw error;
    }
    if (this.starting === starting) this.starting = undefined;
    this.failure = undefined;
    this.exitsInBothEras = false;
    const { client, opened } = connected;
    this.verdict = verdictOf(client) ?? this.verdict;
    const live: Live = { client, opened, gone: false };
    const previousOnClose = client.onclose;
    client.onclose = () => {
      previousOnClose?.();
      if (!live.gone) {
        // Closed under us (the server exited or dropped the connection): release it; the next
        // request starts a new one. A pending request learns of it through the SDK's rejection.
        if (!this.closed) this.options.log.debug(`${this.label()}: connection closed`);
        void this.drop(live);
      }
    };
    client.onerror = (error) => this.options.log.debug(`${this.label()}: ${this.options.redactor.redact(errorMessage(error))}`);
    if (!client.transport) {
      // It went away between initialize and here.
      await this.drop(live);
      throw new McpAdapterError("UPSTREAM_ERROR", this.options.redactor.redact(`${this.label()} closed the connection right after starting${opened.diagnostics?.() ? `; its last stderr lines:\n${opened.diagnostics()}` : ""}`));
    }
    this.live = live;
    this.options.log.debug(`${this.label()}: connected over ${opened.kind}${opened.pid ? ` (pid ${opened.pid})` : ""}`);
    listenForToolChanges(client, {
      say: (message) => {
        if (!live.gone) this.options.log.debug(`${this.label()}: ${this.options.redactor.redact(message)}`);
      },
      warn: (message) => this.options.log.warn(`${this.label()}: ${this.options.redactor.redact(message)}`),
      relist: () => this.options.onToolsChanged(),
      gone: () => live.gone || this.closed,
    });
    return live;
  }

  /** The relays of this connection's calls in flight (adapters/relay.ts). */
  readonly relays = new Set<CallRelay>();

  /** The only call in flight on this connection, to which a message that names no call can only belong; undefined with none or several. */
  private soleRelay(): CallRelay | undefined {
    return this.relays.size === 1 ? this.relays.values().next().value : undefined;
  }

  /**
   * The relay that answers a downstream question, or a refusal that says why there is none. A
   * 2026-07-28 server's question arrives in its call's relay context (LenientClient runs the
   * input_required rounds there). A 2025-era server asks with a request of its own on the
   * connection, naming no call: it goes to the only call in flight; with more than one, whose
   * user to ask is unknown, and guessing could show one caller another's question.
   */
  private relayFor(client: Client, kind: "elicitation" | "sampling"): CallRelay {
    const own = currentRelay.getStore();
    const legacy = client.getProtocolEra() === "legacy";
    const relay = own ?? (legacy ? this.soleRelay() : undefined);
    if (relay && (kind === "elicitation" ? relay.elicit : relay.sample)) return relay;
    if (!own && legacy && this.relays.size > 1) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${this.label()} asked for ${kind === "elicitation" ? "the user's input" : "a model completion"} while ${this.relays.size} calls are in flight on it; a 2025-era server's question does not say which call it belongs to, so the runtime cannot tell whose ${kind === "elicitation" ? "user" : "model"} to ask; this request was refused. Call again once the other calls on this server have finished`,
      );
    }
    // No call to ask through (none in flight, or a 2026-07-28 server asking outside its calls): not the client's capabilities.
    if (!relay) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, noCallRefusal(kind, this.relays.size));
    this.refusedHints.set(relay, capabilityHint(kind, relay));
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, refusal(kind, relay));
  }

  /**
   * What the agent can do about a question of its call that was refused here (its client cannot
   * show it), by call: a 2025-era server passes the refusal on in its own error (translate reads
   * it), or answers with an `isError` result (McpAdapter.call reads it).
   */
  private readonly refusedHints = new WeakMap<CallRelay, string>();

  /** The hint for a call (by its relay) whose downstream was refused a question here; undefined when none was. */
  refusedHintOf(relay: CallRelay): string | undefined {
    return this.refusedHints.get(relay);
  }

  /** Lets a tool's structuredContent that misses its own outputSchema through, and says what missed (output-check.ts). */
  readonly outputCheck = new PassingOutputValidator();

  private makeClient = (): Client => {
    // Both eras: probe with server/discover, fall back to initialize for 2025-era servers. The
    // capabilities say the runtime can pass questions on; a call whose client cannot answer
    // them gets a refusal that says so (below). A 2026-07-28 server is told per call what that
    // call's client can answer (relayedCapabilities, McpAdapter.call).
    const client = new LenientClient(CLIENT_INFO, {
      capabilities: RELAYED_CAPABILITIES,
      jsonSchemaValidator: this.outputCheck,
      // The walk over tools/list pages ends at MAX_PAGES (tools-list-walk.ts), keeping what it read; the SDK's own cap (64, failing the listing) only as a backstop.
      listMaxPages: MAX_PAGES + 1,
      versionNegotiation: { mode: "auto", ...(this.options.probeTimeoutMs ? { probe: { timeoutMs: this.options.probeTimeoutMs } } : {}) },
    });
    client.onMended = (what) => this.options.log.debug(`${this.label()}: initialize answered without ${what}; accepted`);
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      this.options.log.debug(`${this.label()}: tools/list_changed`);
      this.options.onToolsChanged();
    });
    client.setNotificationHandler("notifications/message", (notification) => {
      const { level, logger, data } = notification.params;
      // A log message names no call, and a 2026-07-28 server's arrive outside the call's async
      // context. With one call in flight it is that call's; with several it could be any of
      // them, and handing it to every one would show one caller another's server logs (team
      // mode: another user's). So it stays on the host's log then.
      const own = currentRelay.getStore() as CallRelay | undefined;
      const relay = own ?? this.soleRelay();
      if (!relay) {
        if (this.relays.size > 1) this.options.log.debug(`${this.label()}: a log message (${level}${logger ? `, ${logger}` : ""}) arrived while ${this.relays.size} calls are in flight on it; it names no call, so it was kept on the host instead of being shown to every caller`);
        return;
      }
      relay.log?.({ level, ...(logger ? { logger } : {}), data: this.options.redactor.redactValue(data) });
    });
    client.setRequestHandler("elicitation/create", async (request, ctx) => {
      const relay = this.relayFor(client, "elicitation");
      const modes = relayElicitModes(relay);
      if (!relay.elicit || !modes) {
        this.refusedHints.set(relay, capabilityHint("elicitation", relay));
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, refusal("elicitation", relay));
      }
      // A mode the caller did not declare (a 2025-era server read the connection-wide form+url; a
      // 2026-07-28 one asked beyond what its call was told): refused here, not forwarded to a
      // client that cannot show it.
      const mode = elicitModeOf(request.params);
      if (!modes[mode]) {
        this.refusedHints.set(relay, capabilityHint(mode));
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, modeRefusalToServer(mode, modes));
      }
      // Labelled with the plugin that asks: the user must be able to tell it from the runtime's own confirmations.
      return (await relay.elicit(askedByPlugin(this.options.name, this.masked(request.params)), ctx.mcpReq.signal)) as never;
    });
    client.setRequestHandler("sampling/createMessage", async (request, ctx) => {
      const relay = this.relayFor(client, "sampling");
      return (await relay.sample?.(withoutServerContext(this.masked(request.params)), ctx.mcpReq.signal)) as never;
    });
    return client;
  };

  /**
   * A downstream question (for the user or the client's model) goes to the agent's client as
   * masked as a result: a server may say its own credential in a message, a URL, a schema's
   * field name or a prompt. A masked field name comes back masked in the answer; a server that
   * asks under its credential's name gets no answer to that field.
   */
  private masked(params: unknown): RelayedParams {
    return this.options.redactor.redactValue(params as RelayedParams);
  }

  /**
   * Connect with the kept era verdict; a verdict the server no longer honours is dropped and the
   * era negotiated again. Without a verdict, a probe the server did not survive (it exited on the
   * unknown `server/discover`, as some 2025-era servers do) may mean a 2025-era server: it is
   * started again, once, with the plain handshake. Seen from here, a process that exits at once
   * whatever it is sent looks the same; when it exits before answering `initialize` too, the era
   * was not the cause, and its next starts are not made twice (exitsInBothEras).
   */
  private async openWithVerdict(open: TransportOpener, options: ConnectOptions): Promise<{ client: Client; opened: OpenedTransport }> {
    const tentative = !this.verdict && this.exitsInBothEras;
    const prior = this.verdict ?? (tentative ? LEGACY : undefined);
    try {
      return await open(this.makeClient, prior ? { ...options, prior } : options);
    } catch (error) {
      if (options.signal?.aborted || this.closed) throw error;
      if (prior && isStaleVerdict(error)) {
        this.options.log.info(`${this.label()}: ${tentative ? "it refused the 2025 handshake" : "its protocol era changed"}; negotiating again`);
        this.verdict = undefined;
        return open(this.makeClient, options);
      }
      if (!prior && error instanceof ProbeAnsweredLate) {
        // A slow 2026-07-28 server taken for a 2025-era one: started again now, its probe waited for (stdio-transport.ts).
        this.options.log.info(`${this.label()}: answered the era probe only after it was given up (slow to start); starting it again, waiting for the probe`);
        return open(this.makeClient, options);
      }
      if (!prior && isProbeCasualty(error)) {
        this.options.log.debug(`${this.label()}: did not survive the era probe (${errorMessage(error)}); starting it again as a 2025-era server`);
        return this.openAfterProbeCasualty(open, options);
      }
      throw error;
    }
  }

  /** The start with `initialize` after the process exited on the probe: if it exits before answering again, the era was not why. */
  private async openAfterProbeCasualty(open: TransportOpener, options: ConnectOptions): Promise<{ client: Client; opened: OpenedTransport }> {
    try {
      return await open(this.makeClient, { ...options, prior: LEGACY });
    } catch (error) {
      if (!(error instanceof ExitedWhileStarting) || options.signal?.aborted || this.closed) throw error;
      this.exitsInBothEras = true;
      // Said in the hint: the message's one-line summary (search, help) keeps room for the stderr lines that say why.
      throw new ExitedWhileStarting(error.message, { hint: `It was started twice, once in each protocol era (a 2025-era server may exit on the 2026-07-28 era's first request), and exited before answering both times: the era is not the cause, and its next starts are one each. ${error.hint}` });
    }
  }

  private async drop(live: Live): Promise<void> {
    if (this.live === live) this.live = undefined;
    live.gone = true;
    const previous = this.stopping;
    const stopping = previous.then(() => live.opened.close()).catch((error: unknown) => {
      this.options.log.warn(`${this.label()}: error while stopping: ${this.options.redactor.redact(errorMessage(error))}`);
    });
    this.stopping = stopping;
    await stopping;
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * Make sure a timer will look at the connection when it may have been idle for `idleLimitMs`.
   * A timer already set is left alone (requests only move `lastUsedAt`); when it fires early for
   * the current `lastUsedAt`, it sets itself again for the rest.
   */
  private armIdle(): void {
    if (this.idleTimer || this.closed || !this.idleLimitMs || !this.live) return;
    const check = (): void => {
      this.idleTimer = undefined;
      if (this.closed || !this.live || !this.idleLimitMs) return;
      const idleFor = performance.now() - this.lastUsedAt;
      if (this.inFlight > 0 || idleFor < this.idleLimitMs) {
        // A long call is not cut: look again one idle period after it could have ended.
        this.idleTimer = setTimeout(check, this.inFlight > 0 ? this.idleLimitMs : this.idleLimitMs - idleFor);
        this.idleTimer.unref();
        return;
      }
      this.options.log.debug(`${this.label()}: idle for ${this.idleLimitMs} ms; stopping it`);
      void this.drop(this.live);
    };
    this.idleTimer = setTimeout(check, Math.max(0, this.lastUsedAt + this.idleLimitMs - performance.now()));
    this.idleTimer.unref();
  }

  /**
   * The hint and details of a start refused with a Retry-After, as of now: the wait the server
   * asked for, less the time since (answered from the backoff, the first refusal's "wait 7 s"
   * would otherwise be repeated word for word until the start is tried again).
   */
  private waitLeft(failure: ConnectFailure): { hint?: string; details?: Record<string, unknown> } {
    const asked = retryAfterOf(failure.details);
    const status = failure.details?.status;
    if (asked === undefined || typeof status !== "number") return {};
    const left = Math.max(0, Math.ceil((failure.at + asked * 1000 - this.now()) / 1000));
    return upstreamStatusAdvice(status, { retryAfter: String(left), of: "message" }) ?? {};
  }

  /**
   * The failed start to answer for a call whose own deadline passed while the server was still
   * starting (shorter than the server's start timeout): UPSTREAM_ERROR with the hint about its
   * config entry, as a start that timed out by itself; undefined when no start is under way.
   */
  stillStarting(): McpAdapterError | undefined {
    const starting = this.starting;
    if (!starting || !this.connecting) return undefined;
    const elapsed = Math.round(performance.now() - starting.since);
    const limit = starting.timeoutMs !== undefined ? `; its start may take up to ${starting.timeoutMs} ms, its ${settingAt(this.options.settings, "timeoutMs")}` : "";
    const where = this.options.settings ? `its entry (${settingAt(this.options.settings, "timeoutMs")} and the settings beside it)` : "its settings";
    return new McpAdapterError("UPSTREAM_ERROR", this.options.redactor.redact(`${this.label()} did not finish starting within ${elapsed} ms, when the call's deadline passed${limit}`), {
      hint: `The server did not answer the MCP handshake before the call's deadline: run its command by hand (one that is not an MCP server, or waits for input or a login, never answers), or, if it is only slow to start, raise AGENT_TOOLS_CALL_TIMEOUT_MS above its start time; see ${where}. Then call again. Tool arguments cannot fix this.`,
    });
  }

  /**
   * A request a stdio server was gone for before any of it was written (its process had exited,
   * or its stdin was closed), and that is not sent again (it already was, once, on a new start):
   * it never ran, so not "effect unknown"; the exit code and last stderr lines say why the server
   * stopped, as for any crash. Read once its stop has finished, when its exit is known.
   */
  private async neverSent(what: string, live: Live): Promise<McpAdapterError> {
    if (!live.gone) await this.drop(live);
    await this.stopping;
    const tail = live.opened.diagnostics?.().trim();
    const ended = live.opened.ended?.() ?? "had stopped";
    const where = this.options.settings ? ` (${settingsAt(this.options.settings, ["args", "env"])})` : "";
    return new McpAdapterError("UPSTREAM_ERROR", this.options.redactor.redact(`${this.label()} ${ended} before ${what} could be written to it, so ${what} never reached the server${tail ? `; its last stderr lines:\n${tail}` : " (it wrote nothing to stderr)"}`), {
      hint: `Nothing ran on the server: it stopped right after starting, before the request could be sent${this.closed ? "" : " (sending it once more on a new start met the same)"}. ${tail ? "What it wrote to stderr (in `message`) says why; run" : "Run"} its command by hand to see why, fix it or its arguments and variables${where}, then call again. Tool arguments cannot fix this.`,
    });
  }

  /** The answer to a request that waited for a start the connection's close ended: nothing was sent to the server. */
  private closedWhileStarting(): McpAdapterError {
    return new McpAdapterError("UPSTREAM_ERROR", `${this.label()} was closed while it was still starting (the agent-tools server is shutting down): it was stopped, and the request waiting for it was never sent to it`, {
      hint: "Nothing ran on the server. Call again once the agent-tools server runs again (a call then starts the server anew). Tool arguments cannot fix this.",
    });
  }

  /**
   * A start that timed out (the handshake got no answer) as a failed start, UPSTREAM_ERROR with a
   * hint about the server: not UPSTREAM_TIMEOUT, whose hint (a narrower request) no call can follow,
   * and the same code as the backoff's answers to the calls after it.
   */
  private startNotAnswered(error: McpAdapterError): McpAdapterError {
    if (error.code !== "UPSTREAM_TIMEOUT") return error;
    const where = this.options.settings ? `the server's entry (${settingsAt(this.options.settings, ["url", "timeoutMs"])})` : "the server's settings";
    return new McpAdapterError("UPSTREAM_ERROR", `${error.message} while starting`, {
      hint: `The server did not answer the MCP handshake in time: check that it runs and answers at its address, or raise its timeout if it is only slow to start; see ${where}. Then call again. Tool arguments cannot fix this.`,
    });
  }

  /**
   * A server whose initialize answer named a protocol version the runtime's client does not speak
   * (it refused it and closed the connection): the version offered and the ones spoken, and
   * which side to upgrade, told by the dates (an older one: the server; a later one: the runtime).
   */
  private versionRefused(error: UnsupportedServerVersion): McpAdapterError {
    const offered = error.offered.length > 40 ? `${error.offered.slice(0, 40)}…` : error.offered;
    const dated = /^\d{4}-\d{2}-\d{2}$/.test(error.offered);
    const oldest = error.supported.at(-1) ?? "";
    const newest = error.supported[0] ?? "";
    const upgrade =
      dated && error.offered < oldest
        ? "The server is too old for this runtime: upgrade it to a release that speaks one of these versions"
        : dated && error.offered > newest
          ? "The server is newer than this runtime: upgrade agent-tools-runtime, or use a release of the server that still speaks one of these versions"
          : "The server named a version MCP does not define: update the server (or the runtime, if the server is the newer of the two)";
    return new McpAdapterError(
      "UPSTREAM_ERROR",
      this.options.redactor.redact(`${this.label()} answered initialize with protocol version ${JSON.stringify(offered)}, which this runtime does not speak (its 2025-era handshake takes ${error.supported.join(", ")}; the 2026-07-28 era opens with server/discover instead), so the runtime ended the connection`),
      { hint: `${upgrade}; then call again. Neither its settings nor tool arguments can fix this.` },
    );
  }

  /** What to do about a server that is up but does not answer a listing in time: its side, not the call's. */
  private listingNotAnsweredHint(what: string): string {
    const timeout = this.options.settings ? settingAt(this.options.settings, "timeoutMs") : "the server's timeoutMs";
    return `The server started but did not answer ${what}, which takes no tool arguments: it is stuck or very slow. Check the server (run its command by hand, read its log or stderr), or raise ${timeout} if it is only slow; then call again. Tool arguments cannot fix this.`;
  }

  private async translate(
    error: unknown,
    what: string,
    live: Live | undefined,
    control: RequestControl,
  ): Promise<McpAdapterError> {
    const redact = (text: string): string => this.options.redactor.redact(text);
    const server = this.label();
    if (control.signal?.aborted) {
      const reason: unknown = control.signal.reason;
      if (abortReasonIsTimeout(reason)) return new McpAdapterError("UPSTREAM_TIMEOUT", redact(`${what} on ${server} was aborted: the call's deadline passed`));
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${what} on ${server} was cancelled by the caller`));
    }
    if (error instanceof McpAdapterError) {
      // Its own hint (the depth guard's) says the fix better than the code's generic one; its details (an HTTP status, a Retry-After) are what the hint points at.
      return new McpAdapterError(error.code, redact(error.message), carriedOptions(error));
    }
    if (error instanceof AnswerStreamLost) return connectionLost(redact, `The connection to ${server} was lost during ${what}, before its answer arrived (the server stopped, or the connection was cut)`, what);
    // Before the EPIPE below: a write refused with nothing of it taken keeps that EPIPE as its cause.
    if (live?.opened.kind === "stdio" && isNotConnected(error)) return this.neverSent(what, live);
    const broken = brokeDuringToolCall(error, what);
    if (broken) return connectionLost(redact, `The connection to ${server} broke during ${what}, after the request was sent and before its answer arrived (${broken}: the server stopped, or the connection was cut)`, what);
    if (error instanceof ResponseTooLargeError) {
      // A listing cannot be asked for less: its hint says what can be done instead.
      const hint = isListing(what) ? listingFailureHint("answer-too-large", what) : error.hint;
      return new McpAdapterError("RESULT_TOO_LARGE", redact(`${error.message} (${what})`), { ...(hint ? { hint } : {}), ...(error.details ? { details: error.details } : {}) });
    }
    const code = numericCode(error);
    const closedUnderUs = (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) || live?.gone === true;
    if (closedUnderUs && live) {
      // Let the last stderr chunks arrive before reading the tail.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.live === live) this.live = undefined;
      live.gone = true;
      void this.drop(live);
      // Over HTTP there is no child and no stderr: the connection was closed while the call was
      // sent or its answer awaited (the runtime dropped a session the server had forgotten, or the
      // server cut it), so the call may have run.
      if (live.opened.kind !== "stdio") return connectionLost(redact, `The connection to ${server} was closed during ${what}, before its answer arrived`, what);
      // A stdio server that exited mid-call may have done what the call asked (a write) before it
      // died: the same warning as a lost HTTP connection or a runtime shutdown, not a plain error
      // that reads as "the arguments were wrong" and invites the agent to repeat a write.
      const tail = live.opened.diagnostics?.().trim();
      const ended = live.opened.ended?.() ?? "exited";
      return connectionLost(redact, `${server} ${ended} during ${what}, before its answer arrived`, what, tail ? `; its last stderr lines:\n${tail}` : " (it wrote nothing to stderr)");
    }
    if (isRequestTimeout(error)) {
      const within = control.timeoutMs ? `within ${control.timeoutMs} ms` : `in time: ${errorMessage(error)}`;
      // A listing takes none of the model's arguments: the generic "narrower request" cannot help.
      const listing = isListing(what) ? { hint: this.listingNotAnsweredHint(what) } : {};
      return new McpAdapterError("UPSTREAM_TIMEOUT", redact(`${server} did not answer ${what} ${within}`), listing);
    }
    if (isUnsupportedProtocolVersion(error)) {
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} does not serve a protocol version this runtime speaks: ${errorMessage(error)}`));
    }
    if (error instanceof UnsupportedServerVersion) return this.versionRefused(error);
    if (error instanceof ProtocolError && error.code === OVERSIZED_ANSWER && live?.opened.kind === "stdio") {
      const limit = (error.data as { limitBytes?: unknown } | undefined)?.limitBytes;
      return new McpAdapterError("RESULT_TOO_LARGE", redact(`${server} answered ${what} with a line of more than ${typeof limit === "number" ? limit : "10485760"} bytes (10 MiB, the most one stdio line may carry; not a setting); it was skipped unread, and the server's other calls go on`), {
        hint: isListing(what) ? listingFailureHint("line-too-large", what) : `${ASK_FOR_LESS}; or use a tool that writes the output to a file instead of answering it.`,
      });
    }
    if (error instanceof ProtocolError) {
      // A 2026-07-28 server told that this call's client cannot answer (relayedCapabilities) and
      // that needed an answer: said in the words the relay's own refusal uses.
      const missing = error.code === ProtocolErrorCode.MissingRequiredClientCapability ? missingCapabilityRefusal(error.data, error.message, control.relay) : undefined;
      // A 2025-era server that failed after the runtime refused it a question: that is likely why.
      const hint = missing?.hint ?? (control.relay ? this.refusedHints.get(control.relay) : undefined) ?? (isListing(what) ? listingFailureHint("refused", what) : undefined);
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} answered ${what} with an error: ${quotedServerText(error.message, redact)}${missing ? `; ${missing.why}` : ""}`), hint ? { hint } : {});
    }
    if (error instanceof InsufficientScopeError) {
      // A 403 insufficient_scope: the SDK throws it without a status (it would step up with an OAuth
      // provider, which this runtime does not run), so it is not seen as the 403 it is below.
      const credentials = this.options.credentials?.();
      const scope = error.requiredScope ? `: it requires the scope ${error.requiredScope}` : "";
      const refused = `${server} refused the credentials (HTTP 403 insufficient_scope) for ${what}${scope}; check ${credentials?.what ?? "its token or headers"}`;
      const grant = `Issue a token with ${error.requiredScope ? `the scope ${error.requiredScope}` : "the scope the server requires"} (sign in again granting it).`;
      return new McpAdapterError("NOT_CONFIGURED", redact(refused), { status: 403, hint: redact(`${grant} ${credentials?.fix ?? "Tool arguments cannot fix this."}`) });
    }
    if (code !== undefined && code >= 400 && code < 600) {
      if (code === 401 || code === 403) {
        const credentials = this.options.credentials?.();
        const refused = `${server} refused the credentials (HTTP ${code}) for ${what}; check ${credentials?.what ?? "its token or headers"}`;
        return new McpAdapterError("NOT_CONFIGURED", redact(refused), { status: code, ...(credentials ? { hint: credentials.fix } : {}) });
      }
      // A 429 or 5xx: retry the same call later (after the server's Retry-After, when it sent one: retry-after.ts), not other arguments;
      // a 400/422: fix the argument. The status is the MCP message's, not a resource's: a 404 names no id of the call's (`of`).
      const retryAfter = error instanceof RetryAfterHttpError ? error.retryAfter : undefined;
      const advice = upstreamStatusAdvice(code, { retryAfter, of: "message" }) ?? { details: { status: code } };
      // The server's own words: the JSON-RPC error its body holds, else the SDK's message (which quotes the body).
      const rpc = bodyRpcError(error);
      const said = rpc ? `${quotedServerText(rpc.message, redact)} (JSON-RPC ${rpc.code})` : errorMessage(error);
      const argumentsRefused = rpc?.code === INVALID_PARAMS ? { hint: `The server refused the call's arguments (JSON-RPC ${INVALID_PARAMS}, invalid params): fix the argument \`message\` names and call again.` } : {};
      // A listing carries no arguments of the caller's: a refusal of it is about its address or the server.
      const listingRefused = isListing(what) && retryCannotFix(advice.details) ? { hint: listingRefusedHint(what, code, this.options.settings) } : {};
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} answered ${what} with HTTP ${code}: ${said}`), { status: code, ...advice, ...argumentsRefused, ...listingRefused });
    }
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    if (errno === "ENOENT" || errno === "EACCES") {
      return new McpAdapterError("NOT_CONFIGURED", redact(`${server} could not be started: ${errorMessage(error)}`));
    }
    const answered = notMcpReply(error);
    if (answered) {
      const url = settingAt(this.options.settings, "url");
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} did not answer as an MCP server during ${what}: its URL answered the protocol's first request with ${answered}; check ${url}`), {
        hint: `Set ${url} to ${mcpEndpointMeaning(this.options.settings)}, not a web page or another API; then call again. Tool arguments cannot fix this.`,
      });
    }
    const tail = live?.opened.diagnostics?.().trim();
    const unreachable = unreachableCode(error);
    if (unreachable) {
      const url = settingAt(this.options.settings, "url");
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} failed during ${what}: ${couldNotReach("its URL's host", unreachable)}${tail ? `; its last stderr lines:\n${tail}` : ""}`), {
        hint: `${isUnresolvedHost(unreachable) ? unresolvedHostHint("the server's URL", unreachable, `that ${url}`) : `Nothing answered at the server's address (${unreachable}): start the server, or correct ${url}`}; then call again. Tool arguments cannot fix this.`,
      });
    }
    return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} failed during ${what}: ${quotedServerText(ourWords(errorMessage(error)), redact)}${tail ? `; its last stderr lines:\n${tail}` : ""}`), isListing(what) ? { hint: listingFailureHint("failed", what) } : {});
  }
}
