import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * Works around a leak of the SDK's Streamable HTTP server transport (1.x) in JSON response mode:
 * each POST registers a stream entry whose resolved Promise holds the whole JSON response, and
 * nothing removes the entry once the response is sent (SSE mode calls its cleanup; JSON mode
 * does not). A session kept its initialize and tools/list answers (about 25 KB) and then every
 * answer it ever got, until it closed. After each request, entries of this transport that are
 * JSON streams with no request still waiting on them are released. If the SDK's internals change
 * shape this does nothing.
 */

interface StreamEntry {
  resolveJson?: unknown;
  cleanup?: () => void;
}

interface Internals {
  _streamMapping?: Map<string, StreamEntry>;
  _requestToStreamMapping?: Map<unknown, string>;
}

function releaseSettled(transport: StreamableHTTPServerTransport): void {
  const inner = (transport as unknown as { _webStandardTransport?: Internals })._webStandardTransport;
  const streams = inner?._streamMapping;
  const waiting = inner?._requestToStreamMapping;
  if (!(streams instanceof Map) || !(waiting instanceof Map)) return;
  const busy = new Set(waiting.values());
  for (const [id, entry] of streams) {
    if (typeof entry.resolveJson === "function" && !busy.has(id)) streams.delete(id);
  }
}

/** Make `transport` release finished JSON response streams after each request it handles. */
export function releaseJsonStreams(transport: StreamableHTTPServerTransport): StreamableHTTPServerTransport {
  const handle = transport.handleRequest.bind(transport);
  transport.handleRequest = async (...args: Parameters<StreamableHTTPServerTransport["handleRequest"]>) => {
    try {
      return await handle(...args);
    } finally {
      releaseSettled(transport);
    }
  };
  return transport;
}
