import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { Logger } from "../../adapters/types.js";
import { createFacade, type SessionScope } from "../../facade/server.js";
import type { Runtime } from "../../runtime/runtime.js";
import { closeSession, type Session } from "../../runtime/session.js";

/**
 * Sessions for 2026-07-28 requests, which carry no session id. search/discover/call/run_skill
 * share one process-wide session (its loop memory keys calls by their canonical form, so clients
 * only meet each other's repeated failures). A command line of agent_tools_exec gets a fresh
 * sandbox that ends with the request; workspace handles (below the facade) keep one across calls.
 */
export interface ModernScope extends SessionScope {
  close(): Promise<void>;
}

export function createModernScope(runtime: Runtime): ModernScope {
  const shared: Session = runtime.createSession("modern");
  return {
    session: () => shared,
    async execSession() {
      const session = runtime.createSession();
      return { session, release: () => closeSession(session) };
    },
    close: () => closeSession(shared),
  };
}

export interface ModernEntry {
  /** The SDK's per-request handler in strict mode (2025-era traffic goes to the session table instead). */
  readonly handler: McpHttpHandler;
  close(): Promise<void>;
}

/**
 * The 2026-07-28 leg of the HTTP facade: `createMcpHandler` over the facade's per-request
 * factory (the runtime, its plugins and search index are the process's; a request only gets a
 * Server instance). Tool changes go out on `subscriptions/listen`. Tests drive `handler.fetch`
 * directly, without a socket.
 */
export function createModernEntry(runtime: Runtime, options: { maxBodyBytes?: number; log?: Logger; redact?: (text: string) => string } = {}): ModernEntry {
  const facade = createFacade(runtime);
  const scope = createModernScope(runtime);
  const redact = options.redact ?? ((text: string) => text);
  const handler = createMcpHandler(() => facade.server(scope), {
    legacy: "reject",
    ...(options.maxBodyBytes ? { maxRequestBodySize: options.maxBodyBytes } : {}),
    onerror: (error) => options.log?.debug(`http modern: ${redact(error.message)}`),
  });
  const unsubscribe = runtime.onToolsChanged(() => handler.notify.toolsChanged());
  return {
    handler,
    async close() {
      unsubscribe();
      await handler.close().catch(() => undefined);
      await scope.close();
    },
  };
}
