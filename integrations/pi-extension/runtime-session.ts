import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP session with a running agent-tools-runtime over Streamable HTTP. Nothing here knows
 * about Pi: index.ts turns the tools this lists into Pi tools and routes their calls back here.
 */

export const DEFAULT_URL = "http://127.0.0.1:8321/mcp";
export const START_COMMAND = "node /path/to/agent-tools-runtime/dist/bin/agent-tools-mcp-http.js (or: agent-tools http)";

/**
 * How long a call waits for the runtime's answer by default. The runtime ends every call at its
 * own deadline (AGENT_TOOLS_CALL_TIMEOUT_MS, 40 s unless raised) and answers UPSTREAM_TIMEOUT with
 * a hint; this limit only catches an answer that never comes, so it sits well above that.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;
/** How far past the runtime's deadline (when pi's environment sets it) a call still waits. */
const PAST_RUNTIME_DEADLINE_MS = 30_000;
export const CALL_TIMEOUT_VAR = "AGENT_TOOLS_PI_CALL_TIMEOUT_MS";

export interface RuntimeSettings {
  url: string;
  token?: string;
  /** How long one tools/call waits for its answer (reset whenever the runtime reports progress). */
  callTimeoutMs?: number;
}

/**
 * AGENT_TOOLS_HTTP_URL (default http://127.0.0.1:8321/mcp), the optional AGENT_TOOLS_HTTP_TOKEN,
 * and AGENT_TOOLS_PI_CALL_TIMEOUT_MS (default: 300 s, or the runtime's AGENT_TOOLS_CALL_TIMEOUT_MS
 * plus 30 s when that is set here and longer).
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const url = env.AGENT_TOOLS_HTTP_URL?.trim() || DEFAULT_URL;
  try {
    new URL(url);
  } catch {
    throw new Error(`AGENT_TOOLS_HTTP_URL is not a URL: "${url}". Set it to the runtime's endpoint, e.g. ${DEFAULT_URL}`);
  }
  const token = env.AGENT_TOOLS_HTTP_TOKEN?.trim();
  const callTimeoutMs = callTimeoutFromEnv(env);
  return token ? { url, token, callTimeoutMs } : { url, callTimeoutMs };
}

function callTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const own = env[CALL_TIMEOUT_VAR]?.trim();
  if (own) {
    if (!/^\d+$/.test(own) || Number(own) <= 0) {
      throw new Error(`${CALL_TIMEOUT_VAR} must be a whole number of milliseconds above 0 (got "${own}"), e.g. 600000 for 10 minutes; unset, calls wait ${DEFAULT_CALL_TIMEOUT_MS} ms`);
    }
    return Number(own);
  }
  // the runtime's deadline, when pi runs with the same environment: the runtime's answer must come first
  const runtimeDeadline = Number(env.AGENT_TOOLS_CALL_TIMEOUT_MS?.trim());
  return Number.isInteger(runtimeDeadline) && runtimeDeadline > 0 ? Math.max(DEFAULT_CALL_TIMEOUT_MS, runtimeDeadline + PAST_RUNTIME_DEADLINE_MS) : DEFAULT_CALL_TIMEOUT_MS;
}

/**
 * A POST the runtime answered with an HTTP error status. The SDK's own error keeps only the body
 * as text ("Error POSTing to endpoint: {…}") and drops Retry-After; this keeps the JSON-RPC error
 * the body carries and the header, so the messages below can say what the runtime said.
 */
export class RuntimeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcError: { code?: number; message: string } | undefined,
    readonly body: string,
    readonly retryAfter: string | undefined,
  ) {
    super(`HTTP ${status}: ${rpcError ? rpcError.message : body.slice(0, 500) || "(empty body)"}`);
    this.name = "RuntimeHttpError";
  }
}

/** The first JSON-RPC error in a refusal's body (one message or a batch), if it holds one. */
function rpcErrorIn(body: string): { code?: number; message: string } | undefined {
  const parsed = safeParse(body);
  const first = (Array.isArray(parsed) ? parsed[0] : parsed) as { error?: { code?: unknown; message?: unknown } } | undefined;
  const error = first?.error;
  if (!error || typeof error.message !== "string") return undefined;
  return typeof error.code === "number" ? { code: error.code, message: error.message } : { message: error.message };
}

/** `base`, throwing RuntimeHttpError for a POST answered with an error status (GETs and DELETEs are the SDK's). */
function keepingRefusals(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (response.ok || method.toUpperCase() !== "POST") return response;
    const body = await response.text().catch(() => "");
    throw new RuntimeHttpError(response.status, rpcErrorIn(body), body, response.headers.get("retry-after") ?? undefined);
  };
}

/** Why the runtime could not be used, with the URL tried and the command that starts it. */
export function unreachableMessage(url: string, cause: unknown): string {
  const reason = cause instanceof Error ? describeCause(cause) : String(cause);
  const auth =
    cause instanceof RuntimeHttpError && cause.status === 401
      ? " The runtime wants a bearer token: set AGENT_TOOLS_HTTP_TOKEN to the value it was started with."
      : "";
  return (
    `agent-tools-runtime is not reachable at ${url} (${reason}).${auth} ` +
    `Start it with: ${START_COMMAND}; it listens on ${DEFAULT_URL} by default. ` +
    `If it runs elsewhere, set AGENT_TOOLS_HTTP_URL (and AGENT_TOOLS_HTTP_TOKEN if it has one) before starting pi.`
  );
}

/** "HTTP 503, JSON-RPC error -32000": where a refusal's words came from. */
function refusalSource(error: RuntimeHttpError): string {
  return error.rpcError?.code === undefined ? `HTTP ${error.status}` : `HTTP ${error.status}, JSON-RPC error ${error.rpcError.code}`;
}

/** "Try again in 5 s (its Retry-After)", when the runtime said when. */
function retryAfterSentence(error: RuntimeHttpError): string {
  if (error.retryAfter === undefined) return "";
  const wait = /^\d+$/.test(error.retryAfter.trim()) ? `${error.retryAfter.trim()} s` : `at ${error.retryAfter}`;
  return ` Try again in ${wait} (its Retry-After).`;
}

/** The runtime answered initialize with an error status: it runs, and says why it opened no session. */
export function sessionRefusedMessage(url: string, error: RuntimeHttpError): string {
  const said = error.rpcError?.message ?? (error.body.slice(0, 500) || "no reason given");
  return (
    `agent-tools-runtime at ${url} is running but did not open a session: ${said} (${refusalSource(error)}).` +
    `${retryAfterSentence(error)} Nothing was run; each call tries to open a session again.`
  );
}

/** The runtime answered a call with an error status: its own message first (it says whether the call ran). */
export function callRefusedMessage(url: string, error: RuntimeHttpError): string {
  const said = error.rpcError?.message ?? (error.body.slice(0, 500) || "no reason given");
  return `${said} (${refusalSource(error)} from agent-tools-runtime at ${url}).${retryAfterSentence(error)}`;
}

/** The extension's own wait ran out: what that means for the call, and the setting that lengthens it. */
export function callTimeoutMessage(url: string, tool: string, timeoutMs: number): string {
  return (
    `${tool} got no answer from agent-tools-runtime at ${url} within ${timeoutMs} ms, this extension's limit (${CALL_TIMEOUT_VAR}); ` +
    `the call was cancelled, but whether it took effect is unknown. For a call that changes data, first check whether it took effect ` +
    `(read what it would have changed) and send it again only if it did not. ` +
    `To let calls run longer, set ${CALL_TIMEOUT_VAR} higher in pi's environment, above the runtime's own deadline (AGENT_TOOLS_CALL_TIMEOUT_MS).`
  );
}

/** A request that never got an HTTP answer (refused, reset, unknown host), as fetch reports it. */
function isConnectionFailure(error: unknown): boolean {
  let inner: unknown = error;
  for (let depth = 0; depth < 4 && inner && typeof inner === "object"; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|UND_ERR_SOCKET)$/.test(code)) return true;
    if (inner instanceof TypeError && inner.message === "fetch failed") return true;
    inner = (inner as { cause?: unknown }).cause;
  }
  return false;
}

/** The SDK's own request timer fired (its error carries the timeout in `data`; an abort's does not). */
function isOwnTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout && typeof (error.data as { timeout?: unknown } | undefined)?.timeout === "number";
}

function describeCause(error: Error): string {
  // fetch hides the socket error (ECONNREFUSED and the like) a level or two down in `cause`
  let inner: unknown = error;
  for (let depth = 0; depth < 4 && inner && typeof inner === "object"; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (typeof code === "string") return `${error.message}: ${code}`;
    inner = (inner as { cause?: unknown }).cause;
  }
  return error.message;
}

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Calls sent in it and not answered yet: a dropped session is closed only once they have their answers (closing would fail them). */
  calls: number;
  dropped: boolean;
  ended: boolean;
}

/**
 * One MCP session at a time. pi runs tool calls in parallel, so when the runtime drops the session
 * (404) several calls learn it at once: the first opens the new session and the others wait for
 * that one instead of opening their own, and the dropped one's transport is closed once no call
 * waits in it any more. A session that could not be opened leaves nothing behind: the next call
 * tries again.
 */
export class RuntimeSession {
  private connection: Connection | undefined;
  /** The initialize in flight, which every caller needing a session awaits. */
  private connecting: Promise<Connection> | undefined;
  /** Dropped sessions whose calls have not all been answered yet: close() ends them too. */
  private readonly dropped = new Set<Connection>();
  /** Sessions being ended (DELETE, transport closed): close() waits for them. */
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly settings: RuntimeSettings) {}

  get url(): string {
    return this.settings.url;
  }

  get callTimeoutMs(): number {
    return this.settings.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  /** Open the session now (at load), so a runtime that is not there is said at once. */
  async connect(): Promise<void> {
    await this.session();
  }

  /** Every tool the facade offers, following nextCursor page by page. */
  async listAllTools(): Promise<Tool[]> {
    const { client } = await this.session();
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }).catch((error: unknown) => {
        throw this.described(error, "tools/list");
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
      // a server that repeats a cursor would otherwise keep us here for ever
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new Error(`tools/list at ${this.settings.url} returned the cursor "${cursor}" twice`);
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * tools/call in this session. A 404 means the runtime dropped the session (idle expiry or a
   * restart) without running the call: open a new session (or join the one being opened) and send
   * the call once more.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const first = await this.session();
    try {
      return await this.send(first, name, args, signal);
    } catch (error) {
      if (!(error instanceof RuntimeHttpError && error.status === 404)) throw this.described(error, name, signal);
    }
    const next = await this.replace(first);
    try {
      return await this.send(next, name, args, signal);
    } catch (error) {
      throw this.described(error, name, signal);
    }
  }

  /** End the session on the server (DELETE) and close every transport, including one still opening. */
  async close(): Promise<void> {
    while (this.connecting) await this.connecting.catch(() => undefined);
    const current = this.connection;
    this.connection = undefined;
    if (current) this.end(current, true);
    for (const connection of this.dropped) this.end(connection, false);
    await Promise.all(this.ending);
  }

  private async send(connection: Connection, name: string, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<CallToolResult> {
    connection.calls++;
    try {
      return (await connection.client.callTool({ name, arguments: args }, undefined, {
        ...(signal ? { signal } : {}),
        timeout: this.callTimeoutMs,
        resetTimeoutOnProgress: true,
        // the SDK asks for progress (and so can reset the timer on it) only when a handler is given
        onprogress: () => undefined,
      })) as CallToolResult;
    } finally {
      connection.calls--;
      if (connection.dropped && connection.calls === 0) this.end(connection, false);
    }
  }

  /** The open session, or the one being opened, or a new one. */
  private session(): Promise<Connection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= this.open().then(
      (connection) => {
        this.connecting = undefined;
        this.connection = connection;
        return connection;
      },
      (error: unknown) => {
        this.connecting = undefined;
        throw error;
      },
    );
    return this.connecting;
  }

  /** `stale` answered 404: drop it (once, whoever sees it first) and use the session that replaces it. */
  private replace(stale: Connection): Promise<Connection> {
    if (this.connection === stale) {
      this.connection = undefined;
      stale.dropped = true;
      // the runtime has forgotten it already: no DELETE, only its transport (and GET stream) to
      // close, once the calls still waiting in it have their 404s
      if (stale.calls === 0) this.end(stale, false);
      else this.dropped.add(stale);
    }
    return this.session();
  }

  private end(connection: Connection, terminate: boolean): void {
    if (connection.ended) return;
    connection.ended = true;
    this.dropped.delete(connection);
    const ending = (async () => {
      if (terminate) await connection.transport.terminateSession().catch(() => undefined);
      await connection.client.close().catch(() => undefined);
    })();
    this.ending.add(ending);
    void ending.then(() => this.ending.delete(ending));
  }

  /** Initialize a session; throws an Error that says why none could be opened. */
  private async open(): Promise<Connection> {
    const headers: Record<string, string> = this.settings.token ? { Authorization: `Bearer ${this.settings.token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(this.settings.url), { requestInit: { headers }, fetch: keepingRefusals(fetch) });
    const client = new Client({ name: "agent-tools-runtime-pi-extension", version: "0.1.0" });
    try {
      await client.connect(transport);
    } catch (error) {
      // initialize may have opened a session before a later step failed: end it, not leave it open
      if (transport.sessionId) await transport.terminateSession().catch(() => undefined);
      await transport.close().catch(() => undefined);
      const refused = error instanceof RuntimeHttpError && error.status !== 401;
      throw new Error(refused ? sessionRefusedMessage(this.settings.url, error) : unreachableMessage(this.settings.url, error), { cause: error });
    }
    return { client, transport, calls: 0, dropped: false, ended: false };
  }

  /** A failed request as the model should read it: what happened at which URL, and what to do. */
  private described(error: unknown, what: string, signal?: AbortSignal): unknown {
    // pi aborted the call itself: it knows why
    if (signal?.aborted) return error;
    if (isConnectionFailure(error) || (error instanceof RuntimeHttpError && error.status === 401)) return new Error(unreachableMessage(this.settings.url, error), { cause: error });
    if (error instanceof RuntimeHttpError) return new Error(callRefusedMessage(this.settings.url, error), { cause: error });
    if (isOwnTimeout(error)) return new Error(callTimeoutMessage(this.settings.url, what, this.callTimeoutMs), { cause: error });
    return error;
  }
}

/** The text a model should read from a facade result: its text blocks, joined. */
export function resultText(result: CallToolResult): string {
  const texts = result.content.filter((c): c is { type: "text"; text: string } => c.type === "text").map((c) => c.text);
  if (texts.length > 0) return texts.join("\n");
  return JSON.stringify(result.structuredContent ?? result.content);
}

interface ErrorPayload {
  error?: { code?: unknown; message?: unknown; hint?: unknown };
  // agent_tools_exec's answer (exit code, streams) when the command line failed
  command?: unknown;
  exitCode?: unknown;
  stderr?: unknown;
  stopped?: unknown;
}

/** The runtime's own lines on an exec's stderr start so: they say what to do instead. */
const RUNTIME_NOTE = "agent-tools: ";
/** The longest stderr line put in a message's first line. */
const FIRST_LINE_CHARS = 300;

/**
 * The message of a facade error result: "CODE: message" and the runtime's hint first, so a model
 * reads what to do next, then the whole payload for the details. A failed agent_tools_exec has no
 * error code: its first line is the exit code with the last line of stderr, and the runtime's note
 * on stderr (why a limit stopped it) is the hint.
 */
export function errorMessage(result: CallToolResult): string {
  const text = resultText(result);
  const payload = (result.structuredContent ?? safeParse(text)) as ErrorPayload | undefined;
  const error = payload?.error;
  if (error && typeof error.code === "string") {
    const hint = typeof error.hint === "string" ? `\nHint: ${error.hint}` : "";
    return `${error.code}: ${String(error.message ?? "")}${hint}\n${text}`;
  }
  if (payload && typeof payload.exitCode === "number" && typeof payload.command === "string") return `${execFailureHead(payload.exitCode, payload)}\n${text}`;
  return text;
}

function execFailureHead(exitCode: number, payload: ErrorPayload): string {
  const lines = (typeof payload.stderr === "string" ? payload.stderr : "").split("\n").map((line) => line.trim()).filter(Boolean);
  const notes = lines.filter((line) => line.startsWith(RUNTIME_NOTE)).map((line) => line.slice(RUNTIME_NOTE.length));
  const last = lines.filter((line) => !line.startsWith(RUNTIME_NOTE)).at(-1);
  const said = last === undefined ? "nothing on stderr" : last.length > FIRST_LINE_CHARS ? `${last.slice(0, FIRST_LINE_CHARS)}…` : last;
  const stopped = typeof payload.stopped === "string" ? ` (stopped: ${payload.stopped})` : "";
  const hint = notes.length ? `\nHint: ${notes.join(" ")}` : "";
  return `exit code ${exitCode}${stopped}: ${said}${hint}`;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
