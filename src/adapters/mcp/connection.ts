import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger, ServerDescription } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { ResponseTooLargeError } from "../shared/capped-body.js";
import { McpAdapterError, errorMessage, numericCode } from "./errors.js";
import { LenientClient } from "./lenient-handshake.js";

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
  /** Stop: close the connection; for stdio wait for the child to exit (killing it after a grace period). */
  close(): Promise<void>;
}

/** Connect `makeClient()` to the server (trying fallbacks as needed) and return the connected client. */
export type TransportOpener = (makeClient: () => Client, options: RequestOptions) => Promise<{ client: Client; opened: OpenedTransport }>;

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
}

export interface RequestControl {
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Live {
  client: Client;
  opened: OpenedTransport;
  gone: boolean;
}

const CLIENT_INFO = { name: "agent-tools-runtime", version: "0.1.0" };

function isSessionExpired(error: unknown, live: Live): boolean {
  return numericCode(error) === 404 && !(error instanceof McpError) && live.opened.sessionId?.() !== undefined;
}

function abortReasonIsTimeout(reason: unknown): boolean {
  return reason instanceof Error && (reason.name === "TimeoutError" || (reason as { code?: unknown }).code === "UPSTREAM_TIMEOUT");
}

export class McpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private connectingSignal: AbortSignal | undefined;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private stopping: Promise<void> = Promise.resolve();

  constructor(private readonly options: ConnectionOptions) {}

  /** The stdio child's pid while connected. */
  get pid(): number | undefined {
    return this.live && !this.live.gone ? this.live.opened.pid : undefined;
  }

  get connected(): boolean {
    return this.live !== undefined && !this.live.gone;
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
   * timeout): for a server started only to list its tools.
   */
  stopWhenIdleFor(ms: number): void {
    this.scheduleIdle(ms);
  }

  /**
   * Run `fn` against a connected client under the deadline and abort signal of `control`. `what`
   * names the request in messages ("tools/call 'read_file'").
   */
  async request<T>(what: string, control: RequestControl, fn: (client: Client, options: RequestOptions) => Promise<T>): Promise<T> {
    if (this.closed) throw new McpAdapterError("UPSTREAM_ERROR", `${this.label()} is closed`);
    this.inFlight++;
    this.clearIdle();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new McpAdapterError("UPSTREAM_TIMEOUT", `timed out after ${control.timeoutMs} ms`));
    }, control.timeoutMs);
    const onAbort = (): void => controller.abort(control.signal?.reason);
    if (control.signal?.aborted) onAbort();
    else control.signal?.addEventListener("abort", onAbort, { once: true });
    // The SDK's own timeout is a backstop; ours fires first and gives the clearer message.
    const options: RequestOptions = { signal: controller.signal, timeout: control.timeoutMs + 5_000 };
    try {
      for (let attempt = 0; ; attempt++) {
        let live: Live | undefined;
        try {
          live = await this.ensureLive(options);
          return await fn(live.client, options);
        } catch (error) {
          if (live && attempt === 0 && !controller.signal.aborted && isSessionExpired(error, live)) {
            this.options.log.info(`${this.label()}: session expired (HTTP 404); re-initialising`);
            await this.drop(live);
            continue;
          }
          throw await this.translate(error, what, live, { timedOut, control });
        }
      }
    } finally {
      clearTimeout(timer);
      control.signal?.removeEventListener("abort", onAbort);
      this.inFlight--;
      this.scheduleIdle();
    }
  }

  /** Stop the server (if running) and refuse further requests. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
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
    const makeClient = (): Client => {
      const client = new LenientClient(CLIENT_INFO, { capabilities: {} });
      client.onMended = (what) => this.options.log.debug(`${this.label()}: initialize answered without ${what}; accepted`);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        this.options.log.debug(`${this.label()}: tools/list_changed`);
        this.options.onToolsChanged();
      });
      return client;
    };
    const { client, opened } = await this.options.open(makeClient, options);
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
    return live;
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

  private scheduleIdle(idleMs: number = this.options.idleTimeoutMs): void {
    this.clearIdle();
    if (this.closed || this.inFlight > 0 || !idleMs || !this.live) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.inFlight > 0 || !this.live) return;
      this.options.log.debug(`${this.label()}: idle for ${idleMs} ms; stopping it`);
      void this.drop(this.live);
    }, idleMs);
    this.idleTimer.unref();
  }

  private async translate(
    error: unknown,
    what: string,
    live: Live | undefined,
    state: { timedOut: boolean; control: RequestControl },
  ): Promise<McpAdapterError> {
    const redact = (text: string): string => this.options.redactor.redact(text);
    const server = this.label();
    if (state.timedOut) {
      return new McpAdapterError("UPSTREAM_TIMEOUT", redact(`${server} did not answer ${what} within ${state.control.timeoutMs} ms`));
    }
    if (state.control.signal?.aborted) {
      const reason: unknown = state.control.signal.reason;
      if (abortReasonIsTimeout(reason)) return new McpAdapterError("UPSTREAM_TIMEOUT", redact(`${what} on ${server} was aborted: the call's deadline passed`));
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${what} on ${server} was cancelled by the caller`));
    }
    if (error instanceof McpAdapterError) {
      return new McpAdapterError(error.code, redact(error.message), error.status !== undefined ? { status: error.status } : {});
    }
    if (error instanceof ResponseTooLargeError) {
      return new McpAdapterError("RESULT_TOO_LARGE", redact(`${error.message} (${what})`), { ...(error.hint ? { hint: error.hint } : {}), ...(error.details ? { details: error.details } : {}) });
    }
    const code = numericCode(error);
    const closedUnderUs = (error instanceof McpError && code === ErrorCode.ConnectionClosed) || live?.gone === true;
    if (closedUnderUs && live) {
      // Let the last stderr chunks arrive before reading the tail.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.live === live) this.live = undefined;
      live.gone = true;
      void this.drop(live);
      const tail = live.opened.diagnostics?.().trim();
      const where = live.opened.kind === "stdio" ? "exited" : "closed the connection";
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} ${where} during ${what}${tail ? `; its last stderr lines:\n${tail}` : " (it wrote nothing to stderr)"}`));
    }
    if (error instanceof McpError && code === ErrorCode.RequestTimeout) {
      return new McpAdapterError("UPSTREAM_TIMEOUT", redact(`${server} did not answer ${what} in time: ${error.message}`));
    }
    if (error instanceof McpError) {
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} answered ${what} with an error: ${error.message}`));
    }
    if (code !== undefined && code >= 400 && code < 600) {
      if (code === 401 || code === 403) {
        return new McpAdapterError("NOT_CONFIGURED", redact(`${server} refused the credentials (HTTP ${code}) for ${what}; check its token or headers`), { status: code });
      }
      return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} answered ${what} with HTTP ${code}: ${errorMessage(error)}`), { status: code });
    }
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    if (errno === "ENOENT" || errno === "EACCES") {
      return new McpAdapterError("NOT_CONFIGURED", redact(`${server} could not be started: ${errorMessage(error)}`));
    }
    const tail = live?.opened.diagnostics?.().trim();
    return new McpAdapterError("UPSTREAM_ERROR", redact(`${server} failed during ${what}: ${errorMessage(error)}${tail ? `; its last stderr lines:\n${tail}` : ""}`));
  }
}
