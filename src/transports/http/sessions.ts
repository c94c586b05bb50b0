import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { randomUUID } from "node:crypto";
import type { Logger } from "../../adapters/types.js";
import { createFacadeServer } from "../../facade/server.js";
import { releaseJsonStreams } from "./json-stream-release.js";
import type { Runtime } from "../../runtime/runtime.js";
import { closeSession, type Session } from "../../runtime/session.js";

/**
 * The open MCP sessions of the HTTP facade. Each has its own SDK transport, facade server and
 * runtime session (loop memory, call log, text-layer sandbox); the runtime and its adapters are
 * shared. Sessions end on DELETE, after sitting idle too long, or at shutdown.
 */

export interface HttpSession {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly session: Session;
  readonly responseMode: "json" | "sse";
  lastSeen: number;
  inFlight: number;
}

export interface SessionRegistryOptions {
  runtime: Runtime;
  log: Logger;
  maxSessions: number;
  idleMs: number;
  now?: () => number;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    // Sweep often enough that an idle session outlives its limit by at most a quarter of it.
    const every = Math.max(250, Math.min(60_000, Math.floor(options.idleMs / 4)));
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The live session with this id; an expired one is closed on the spot and reported missing. */
  get(id: string): HttpSession | undefined {
    const entry = this.sessions.get(id);
    if (!entry) return undefined;
    if (this.isExpired(entry)) {
      void this.close(id, "idle");
      return undefined;
    }
    return entry;
  }

  /** Whether a new session may open now (expired ones are swept first). */
  async hasRoom(): Promise<boolean> {
    if (this.sessions.size < this.options.maxSessions) return true;
    await this.sweep();
    return this.sessions.size < this.options.maxSessions;
  }

  /**
   * A new session, connected and registered (the initialize request is handled by the caller), or
   * undefined when the cap is reached: checked again here, synchronously with the registration, so
   * concurrent initializes cannot pass the cap together.
   */
  async open(responseMode: "json" | "sse"): Promise<HttpSession | undefined> {
    if (this.sessions.size >= this.options.maxSessions) return undefined;
    const id = randomUUID();
    const session = this.options.runtime.createSession(id);
    const transport = releaseJsonStreams(
      new StreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        enableJsonResponse: responseMode === "json",
        onsessionclosed: () => void this.close(id, "DELETE"),
      }),
    );
    const server = createFacadeServer({ runtime: this.options.runtime, session });
    const entry: HttpSession = { id, transport, server, session, responseMode, lastSeen: this.now(), inFlight: 0 };
    this.sessions.set(id, entry);
    await server.connect(transport);
    return entry;
  }

  async close(id: string, why: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    this.options.log.debug(`session ${id.slice(0, 8)} closed (${why})`);
    await entry.server.close().catch(() => undefined);
    await closeSession(entry.session);
  }

  async closeAll(why: string): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.close(id, why)));
  }

  private isExpired(entry: HttpSession): boolean {
    return entry.inFlight === 0 && this.now() - entry.lastSeen > this.options.idleMs;
  }

  private async sweep(): Promise<void> {
    const expired = [...this.sessions.values()].filter((entry) => this.isExpired(entry));
    await Promise.allSettled(expired.map((entry) => this.close(entry.id, "idle")));
  }
}
