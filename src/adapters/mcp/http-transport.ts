import { ProtocolError, SSEClientTransport, SdkError, SdkErrorCode, type Client, type StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AnswerWatchingHttpTransport } from "./answer-watching-http.js";
import { mcpEndpointMeaning, settingAt, type Logger, type SettingsLocation } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { cappedFetch, maxResponseBytesFrom } from "../shared/capped-body.js";
import { withRetryAfter } from "./retry-after.js";
import { withOwnRequestSignal } from "./own-request-signal.js";
import { pacedEventStreams } from "./event-stream-pacing.js";
import { authFetch, createBearerSource, type BearerSource } from "./bearer-auth.js";
import { canonicalResource } from "./oauth-token-store.js";
import type { SharedTokenState } from "./oauth-token-store.js";
import { resolveAddress, resolveSecretAware } from "../shared/env-vars.js";
import type { ConnectOptions, OpenedTransport, TransportOpener } from "./connection.js";
import { McpAdapterError, isRequestTimeout, isUnsupportedProtocolVersion, errorMessage, numericCode } from "./errors.js";
import type { McpHttpSpec } from "./spec.js";
import type { Cancellation } from "../../cancel.js";

/**
 * Opens an HTTP MCP server: Streamable HTTP first (either protocol era, negotiated by the client),
 * falling back to the old SSE transport when the server does not speak it (a 4xx other than
 * 401/403 on the first POST), or SSE directly with `type: "sse"`. A JSON-RPC answer, -32022
 * (unsupported protocol version) included, is final: that server speaks Streamable HTTP. URL and header `${VAR}` values are resolved on the host at connect time and
 * registered as secrets; the bearer token (auth) is added per request by `authFetch`.
 */

export interface HttpOpenerOptions {
  name: string;
  hostEnv: NodeJS.ProcessEnv;
  baseDir?: string;
  redactor: Redactor;
  log: Logger;
  fetch?: typeof fetch;
  /** The gateway's shared state: OAuth token stores are kept there and refreshed under its lock. */
  shared?: SharedTokenState;
  /** Where the server's settings are written, for hints that say what to change. */
  settings?: SettingsLocation;
}

/** HTTP statuses that mean "this endpoint does not speak Streamable HTTP" rather than "refused". */
const FALLBACK_STATUSES = new Set([400, 404, 405, 406, 415]);

function shouldFallBack(error: unknown): boolean {
  if (error instanceof ProtocolError || error instanceof McpAdapterError) return false;
  if (isUnsupportedProtocolVersion(error)) return false;
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) return false;
  const status = numericCode(error);
  return status !== undefined && FALLBACK_STATUSES.has(status);
}

export function createHttpOpener(spec: McpHttpSpec, options: HttpOpenerOptions): TransportOpener {
  let bearer: BearerSource | undefined;
  return async (makeClient, requestOptions) => {
    const { hostEnv, redactor } = options;
    // The address stays readable; its credentials (user:password@, a key in the query) are masked.
    const url = new URL(resolveAddress(spec.url, hostEnv, "adapter.url", redactor));
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(spec.headers)) {
      headers[key] = resolveSecretAware(value, hostEnv, `adapter.headers.${key}`, redactor);
      if (/^(authorization|proxy-authorization|cookie|x-api-key|api-key)$/i.test(key)) redactor.add(headers[key]);
    }
    // Credentials in the URL (user:password@host) mean HTTP Basic auth, as curl and browsers read
    // them; fetch refuses a URL that carries them ("Request cannot be constructed…"). A header the
    // entry gives itself wins.
    if (url.username || url.password) {
      const encoded = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64");
      redactor.add(encoded);
      url.username = "";
      url.password = "";
      if (!Object.keys(headers).some((key) => key.toLowerCase() === "authorization")) headers.Authorization = `Basic ${encoded}`;
    }
    if (spec.auth) {
      bearer ??= createBearerSource(spec.auth, {
        env: hostEnv,
        redactor,
        name: options.name,
        ...(options.baseDir ? { baseDir: options.baseDir } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.shared ? { shared: options.shared } : {}),
        resource: canonicalResource(url),
      });
      // Fail early (NOT_CONFIGURED) when there is no token at all. Under the start's cancellation:
      // a refresh waiting for another process's lock ends with the call that started the server.
      await bearer.token(requestOptions.signal);
    }
    // Each request gets its own abort signal, so the connection's one signal does not collect a listener per request (own-request-signal.ts).
    const baseFetch = withOwnRequestSignal(options.fetch ?? fetch);
    // Answers are read as capped streams: a JSON answer past the cap, or an SSE event past it, fails RESULT_TOO_LARGE.
    // A 429 or 5xx keeps its Retry-After, which the SDK's own error drops (retry-after.ts).
    const fetchImpl = withRetryAfter(cappedFetch(maxResponseBytesFrom(hostEnv), `MCP server '${options.name}'`, bearer ? authFetch(bearer, baseFetch) : baseFetch));
    const requestInit: RequestInit = { headers };
    // The bearer token is readied under each request's cancellation before the SDK sends it (OpenedTransport.prepare).
    const source = bearer;
    const prepare = source ? { prepare: (cancel: Cancellation | undefined) => source.token(cancel) } : {};

    const connectSse = async (): Promise<{ client: Client; opened: OpenedTransport }> => {
      const transport = new SSEClientTransport(url, { requestInit, fetch: fetchImpl });
      const client = makeClient();
      await connectOrClose(client, transport, requestOptions);
      return { client, opened: { kind: "sse", ...prepare, close: () => client.close() } };
    };

    if (spec.type === "sse") return connectSse();
    // The server's event streams are reopened at a bounded pace and given up when it keeps ending them at once (event-stream-pacing.ts).
    const pacedFetch = pacedEventStreams(fetchImpl, (quickEnds) =>
      options.log.warn(
        redactor.redact(
          `MCP server '${options.name}' at ${url.origin}${url.pathname} ended its event stream (GET) ${quickEnds} times in a row right after opening it; the runtime stopped reopening it. Calls still work; what the server sends outside a call (tools/list_changed, log messages) is no longer received until the runtime connects to it again`,
        ),
      ),
    );
    const transport = new AnswerWatchingHttpTransport(url, { requestInit, fetch: pacedFetch });
    const client = makeClient();
    try {
      await connectOrClose(client, transport, requestOptions);
    } catch (error) {
      if (!shouldFallBack(error) || requestOptions.signal?.aborted || isRequestTimeout(error)) throw error;
      options.log.debug(`MCP server '${options.name}': Streamable HTTP refused (${redactor.redact(errorMessage(error))}); trying SSE`);
      try {
        return await connectSse();
      } catch (sseError) {
        const status = numericCode(sseError);
        if (sseError instanceof McpAdapterError || sseError instanceof ProtocolError || status === 401 || status === 403) throw sseError;
        // Refused by both transports (a 400, 404 or 405 to MCP's first request): not an MCP endpoint,
        // whatever request started the connection; a tool call's or a listing's hint would not fit.
        throw new McpAdapterError(
          "UPSTREAM_ERROR",
          redactor.redact(`MCP server '${options.name}' at ${url.origin}${url.pathname} speaks neither Streamable HTTP (${errorMessage(error)}) nor SSE (${errorMessage(sseError)})`),
          {
            hint: `This URL refused MCP's first request (HTTP ${numericCode(error)}) over both transports, so it is most likely not ${mcpEndpointMeaning(options.settings)}: a wrong path or port, or another service. Set ${settingAt(options.settings, "url")} to it, then call again. The connection never opened, so nothing ran on the server. Tool arguments cannot fix this.`,
          },
        );
      }
    }
    const opened: OpenedTransport = {
      kind: "streamable-http",
      ...prepare,
      sessionId: () => transport.sessionId,
      close: async () => {
        // Tell the server the session is over (best effort), then drop the connection.
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
    return { client, opened };
  };
}

async function connectOrClose(client: Client, transport: StreamableHTTPClientTransport | SSEClientTransport, options: ConnectOptions): Promise<void> {
  try {
    await client.connect(transport, options);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
