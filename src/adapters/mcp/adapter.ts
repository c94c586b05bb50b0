import type { CallToolResult } from "@modelcontextprotocol/client";
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, type DiscoverResult } from "@modelcontextprotocol/client";
import type { Adapter, AdapterHealth, CallContext, ListToolsOptions, Logger, ServerDescription, SettingsLocation, ToolDescriptor } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { listAllTools, ToolCatalog } from "./catalog.js";
import type { CredentialSource } from "./bearer-auth.js";
import { isPriorDiscovery, McpConnection, type TransportOpener } from "./connection.js";
import type { McpAdapterError } from "./errors.js";
import { currentRelay, relayedCapabilities } from "../relay.js";
import { LenientClient } from "./lenient-handshake.js";
import { toolReportedError } from "../../runtime/result.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "./spec.js";
import { CallGate } from "./call-gate.js";

/**
 * The Adapter over one MCP server. Tools pass through in MCP shape (annotations included);
 * results are MCP CallToolResult objects (the runtime unwraps them), with registered secrets masked.
 */

/** How long a server started only to list its tools is kept for a call that may follow. */
const LISTING_IDLE_MS = 15_000;
/**
 * A server started only for a background listing (nobody waits, no call is expected): stopped as
 * soon as nothing else uses it. 1 ms, not 0: 0 turns the idle stop off.
 */
const BACKGROUND_LISTING_IDLE_MS = 1;

export interface McpAdapterOptions {
  name: string;
  open: TransportOpener;
  redactor: Redactor;
  log: Logger;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  /** Where its settings are written, for hints that say what to change. */
  settings?: SettingsLocation;
  /** Where its credentials come from, for the answer to a refused one (connection.ts). */
  credentials?: () => CredentialSource;
  /** At most this many tool calls in flight at once (call-gate.ts). */
  maxConcurrentCalls?: number;
  /** Resolved path of the lock held around each call that may write (call-gate.ts). */
  lockFile?: string;
}

export class McpAdapter implements Adapter {
  private readonly connection: McpConnection;
  private readonly catalog = new ToolCatalog();
  private readonly listeners = new Set<() => void>();
  private readonly timeoutMs: number;
  private readonly idleTimeoutMs: number;
  /** The cap and lock of its calls, when the block sets either. */
  private readonly gate: CallGate | undefined;
  /** Listings for a caller begun so far: one that joins a background listing (ToolCatalog.get) makes it keep the server. */
  private callerListings = 0;
  readonly name: string;

  constructor(private readonly options: McpAdapterOptions) {
    this.name = options.name;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.connection = new McpConnection({
      name: options.name,
      open: options.open,
      idleTimeoutMs: this.idleTimeoutMs,
      probeTimeoutMs: this.timeoutMs,
      log: options.log,
      redactor: options.redactor,
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      onToolsChanged: () => this.toolsChanged(),
    });
    if (options.maxConcurrentCalls !== undefined || options.lockFile !== undefined) {
      this.gate = new CallGate({
        label: `MCP server '${options.name}'`,
        timeoutMs: this.timeoutMs,
        ...(options.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: options.maxConcurrentCalls } : {}),
        ...(options.lockFile !== undefined ? { lockFile: options.lockFile } : {}),
        readsOnly: (tool) => this.catalog.declaresReadOnly(tool),
        log: options.log,
      });
    }
  }

  async listTools(listing: ListToolsOptions = {}): Promise<{ tools: ToolDescriptor[]; notes: string[]; ttlMs?: number }> {
    // A server started only for its catalog (nothing was running) is not kept for the whole idle
    // timeout: fifty of them would sit in memory for nothing. One listed for a search or discover
    // stays a while for the call that may follow; one listed in the background (the catalog is
    // stored for later starts) stops at once: its process, pipes and client buffers are the
    // runtime's idle memory otherwise. A call that started it, or came meanwhile, keeps it (the
    // normal timeout). Only the listing that sent the request decides: one that joined it sent none.
    if (!listing.background) this.callerListings++;
    const callersBefore = this.callerListings;
    const wasRunning = this.connection.startedOrStarting;
    const begun = this.connection.requestsBegun;
    if (listing.fresh) this.catalog.invalidate();
    const { tools, notes, ttlMs } = await this.catalog.get(() =>
      this.connection
        .request("tools/list", { timeoutMs: this.timeoutMs }, (client, options) => listAllTools(client, options))
        .then((listed) => ({ ...listed, tools: listed.tools.map(this.maskedTool), notes: listed.notes.map((note) => this.options.redactor.redactValue(note)) })),
    );
    const onlyThisListing = this.connection.requestsBegun === begun + 1;
    if (!wasRunning && onlyThisListing) {
      // Background only if it still is: read after the listing, since a caller that joined it
      // (here, or in the runtime's catalog, which then clears `listing.background`) waits for its answer.
      const background = listing.background === true && this.callerListings === callersBefore;
      this.connection.stopWhenIdleFor(background ? BACKGROUND_LISTING_IDLE_MS : Math.min(LISTING_IDLE_MS, this.idleTimeoutMs || LISTING_IDLE_MS));
    }
    return { tools: tools.map((tool) => ({ ...tool })), notes, ...(ttlMs === undefined ? {} : { ttlMs }) };
  }

  /** What the server says of itself, masked: its title, description or instructions reach search answers, help and the server instructions. */
  serverInfo(): ServerDescription | undefined {
    return this.options.redactor.redactValue(this.connection.serverInfo);
  }

  /**
   * A listed tool masked like a result, once when listed (so the index, the catalog cache and every
   * answer see the masked text): a server may template its credential into a description, a title
   * or a schema's default. Its name is kept: it is what the call sends back.
   */
  private readonly maskedTool = (tool: ToolDescriptor): ToolDescriptor => {
    const masked = this.options.redactor.redactValue(tool);
    return masked === tool ? tool : { ...masked, name: tool.name };
  };

  call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<CallToolResult> {
    if (!this.gate) return this.send(name, args, ctx, this.timeoutMs);
    const cancel = ctx?.cancel ?? ctx?.signal;
    return this.gate.run(name, { ...(ctx?.deadline !== undefined ? { deadline: ctx.deadline } : {}), ...(cancel ? { cancel } : {}) }, (timeoutMs) => this.send(name, args, ctx, timeoutMs));
  }

  /** The tools/call itself, with `timeoutMs` for the downstream request. */
  private send(name: string, args: Record<string, unknown>, ctx: CallContext | undefined, timeoutMs: number): Promise<CallToolResult> {
    const relay = ctx?.relay;
    // With a relay, ask a 2026-07-28 server for its log messages (absent, it sends none); the agent's client filters them by its own level.
    // Not on the lane: it serves only 2025-era servers, for which that key means nothing (they
    // take their level from logging/setLevel), and it cost both pipes and the server bytes on every call.
    const params = { name, arguments: args };
    const sdkParams = relay?.log ? { ...params, _meta: { [LOG_LEVEL_META_KEY]: "debug" } } : params;
    // Progress of the downstream call goes to the agent's client (its own progressToken), its
    // message masked like a result (a server may say its credential in it).
    const progress = relay?.progress
      ? { onprogress: (p: { progress: number; total?: number; message?: string }) => relay.progress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: this.options.redactor.redactValue(p.message) } : {}) }), resetTimeoutOnProgress: true }
      : undefined;
    // The Cancel when the pipeline gave one: the lane listens to it without making an AbortSignal.
    const cancellation = ctx?.cancel ?? ctx?.signal;
    const control = { timeoutMs, ...(cancellation ? { signal: cancellation } : {}), ...(relay ? { relay } : {}) };
    // The relay is known to the connection before anything is sent (downstream questions find it there).
    const relays = this.connection.relays;
    if (relay) relays.add(relay);
    const running: Promise<unknown> = this.connection.request(`tools/call '${name}'`, control, (client, options, lane) => {
      // The fast lane (call-lane.ts) for a 2025-era stdio server's tool the SDK would not check
      // against an outputSchema; anything else, or when unsure, the SDK path.
      if (lane?.accepts() && !this.catalog.sdkChecksOutputOf(name)) return lane.call(params, progress ? { ...control, ...progress } : control);
      const withProgress = progress ? { ...options, ...progress } : options;
      const modern = client.getProtocolEra() === "modern";
      // A 2026-07-28 server reads the client's capabilities per request: it is told what this
      // call's client can answer, not what the connection could relay for some other call.
      const callParams = modern ? { ...params, _meta: { ...(relay?.log ? { [LOG_LEVEL_META_KEY]: "debug" } : {}), [CLIENT_CAPABILITIES_META_KEY]: relayedCapabilities(relay) } } : sdkParams;
      const called = () => client.callTool(callParams, withProgress);
      // A tool with an outputSchema: a result that misses it, or has no structuredContent at all,
      // is passed on with a warning (output-check.ts, LenientClient.callToolKeepingAnswer).
      const checked = () => (client instanceof LenientClient ? client.callToolKeepingAnswer(callParams, withProgress) : called());
      const calling = this.catalog.sdkChecksOutputOf(name)
        ? () => checked().then((result) => this.warnedOfMismatch(name, result, client instanceof LenientClient && client.lacksStructuredContent(result), ctx))
        : called;
      // A 2026-07-28 server's questions are fulfilled by the SDK's input_required driver, which
      // LenientClient runs in the context of the request it answers: they find this call's relay
      // there. A 2025-era server asks on its connection, outside any call's context (McpConnection
      // takes the only call in flight), so no context is entered for it: the first AsyncLocalStorage.run turns on
      // promise hooks for the whole process, a cost on every promise of every call after it.
      // The connect (when the server was not running) happens before this, outside the context,
      // so the connection's streams never carry one call's relay into later calls.
      return relay && modern ? currentRelay.run(relay, calling) : calling();
    });
    // The runtime's pipeline masks a tool's result with the fleet's redactor (its shape step):
    // when that is this adapter's own, the result is masked there, once.
    const masked = ctx?.resultRedactor === this.options.redactor;
    // Callbacks rather than an async frame kept alive across every call.
    if (!relay) return masked ? (running as Promise<CallToolResult>) : running.then(this.redacted);
    return running.then(
      (result) => {
        relays.delete(relay);
        const answered = masked ? (result as CallToolResult) : this.redacted(result);
        // A server that was refused a question during this call (the agent's client cannot
        // answer it) and answered with an error result rather than an error: the same hint as
        // for the error (what the client must declare, or another tool), not the generic one.
        const refused = answered.isError ? this.connection.refusedHintOf(relay) : undefined;
        if (refused) throw toolReportedError(answered, (text) => this.options.redactor.redact(text), refused);
        return answered;
      },
      (error: unknown) => {
        relays.delete(relay);
        throw error;
      },
    );
  }

  /** `result`, with the call's answer warned when its structuredContent misses the tool's own outputSchema, or is absent though that schema asks for it. */
  private warnedOfMismatch<R extends { structuredContent?: unknown }>(name: string, result: R, lacksStructuredContent: boolean, ctx: CallContext | undefined): R {
    const mismatch = this.connection.outputCheck.mismatchOf(result.structuredContent);
    const problem =
      mismatch !== undefined
        ? `answered structuredContent that does not match its own outputSchema (${mismatch})`
        : lacksStructuredContent
          ? "declared an outputSchema but answered without structuredContent (only content)"
          : undefined;
    if (problem !== undefined) {
      const warning = this.options.redactor.redact(`tool '${name}' ${problem}; it is passed on as the server sent it`);
      if (ctx?.warn) ctx.warn(warning);
      else this.options.log.warn(warning);
    }
    return result;
  }

  /** A downstream result through the fleet's redactor (made once, not per call). */
  private readonly redacted = (result: unknown): CallToolResult => this.options.redactor.redactValue(result as CallToolResult);

  onToolsChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Stop the server now (as the idle timer does); the next use starts it again. */
  async stop(): Promise<void> {
    await this.connection.stop();
  }

  /** The stdio child's pid while it runs (diagnostics and tests). */
  get pid(): number | undefined {
    return this.connection.pid;
  }

  get connected(): boolean {
    return this.connection.connected;
  }

  /** Calls that took the tools/call fast lane (call-lane.ts) on the current connection; undefined without one. */
  get laneCalls(): number | undefined {
    return this.connection.laneCalls;
  }

  stillStarting(): McpAdapterError | undefined {
    return this.connection.stillStarting();
  }

  health(): AdapterHealth | undefined {
    const failure = this.connection.lastFailure;
    if (!failure) return undefined;
    return { state: "failing", reason: failure.message, retryInMs: Math.max(0, failure.retryAt - Date.now()) };
  }

  /** "modern" (2026-07-28), "legacy" (2025 era), or undefined before the first connect. */
  get era(): "modern" | "legacy" | undefined {
    return this.connection.era;
  }

  /** The server's server/discover answer, kept with the catalog so a reconnect skips the probe. */
  get discoverResult(): DiscoverResult | undefined {
    return this.connection.discoverResult;
  }

  protocolVerdict(): unknown {
    return this.connection.keptVerdict;
  }

  adoptProtocol(verdict: unknown): void {
    // Only before the first connect: a verdict this run learnt itself is newer.
    if (this.connection.era === undefined && isPriorDiscovery(verdict)) this.connection.rememberVerdict(verdict);
  }

  /** The server's last stderr lines (stdio), redacted. */
  stderrTail(): string {
    return this.options.redactor.redact(this.connection.diagnostics());
  }

  private toolsChanged(): void {
    this.catalog.invalidate();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.options.log.warn(`MCP server '${this.name}': a tools-changed listener failed: ${this.options.redactor.redact((error as Error).message)}`);
      }
    }
  }
}
