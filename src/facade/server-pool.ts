import type { Server, ServerContext } from "@modelcontextprotocol/server";

/**
 * Idle facade Servers for the 2026-07-28 HTTP leg, so that a request reuses an instance instead
 * of building one.
 *
 * `createMcpHandler` asks its factory for a Server per request and connects it to a one-exchange
 * transport. A facade Server holds nothing of its own between exchanges: the per-request parts
 * (negotiated version, the client's capabilities from the envelope, the transport) are set by the
 * SDK on every exchange, and its handlers close over what is the same for every request of one
 * caller (the tool view and scope). Building, connecting and dropping a fresh one (the Protocol's
 * maps, its built-in handlers, ours, the close hook) was a cost only the modern era paid per
 * request (bench/protocol.ts).
 *
 * An instance goes back to the pool only once nothing of its last exchange can still use it: the
 * SDK has closed the exchange (no transport), and every handler that exchange started has
 * settled. A handler's sends are tied to its own exchange (`live`): anything it or a relay it
 * created sends after it settled is dropped, as the closed exchange dropped it before, so it can
 * never reach the next exchange the instance serves (request ids repeat across clients).
 */

/** Runs one request handler of a pooled Server with the pool's bookkeeping around it. */
export type HandlerScope = <R>(ctx: ServerContext, run: (ctx: ServerContext) => Promise<R>) => Promise<R>;

/** Idle instances kept per pool; more are built under load and dropped when they finish. */
const MAX_IDLE = 16;

interface Lease {
  leased: boolean;
  running: number;
}

const ended = (): Promise<never> => Promise.reject(new Error("this request has ended; nothing more can be sent for it"));

/**
 * The request context with its sends cut off once `live.on` is false. Notifications and logs are
 * what a relay may still try after its call ended; `send` is cut too. (Server-to-client requests
 * through `elicitInput`/`requestSampling` do not exist in the 2026-07-28 era: the SDK refuses them.)
 */
function tiedTo(ctx: ServerContext, live: { on: boolean }): ServerContext {
  const req = ctx.mcpReq;
  return {
    ...ctx,
    mcpReq: {
      ...req,
      notify: (notification) => (live.on ? req.notify(notification) : Promise.resolve()),
      log: (level, data, logger) => (live.on ? req.log(level, data, logger) : Promise.resolve()),
      send: ((...args: Parameters<typeof req.send>) => (live.on ? req.send(...args) : ended())) as typeof req.send,
    },
  };
}

export class ServerPool {
  private readonly idle: Array<{ server: Server; lease: Lease }> = [];

  /** `build` makes a Server whose request handlers run inside the given scope. */
  constructor(private readonly build: (scope: HandlerScope) => Server) {}

  /** An idle instance, or a new one: it is this caller's until its exchange is over. */
  acquire(): Server {
    const reused = this.idle.pop();
    if (reused) {
      reused.lease.leased = true;
      return reused.server;
    }
    const lease: Lease = { leased: true, running: 0 };
    const server = this.build(async (ctx, run) => {
      lease.running += 1;
      const live = { on: true };
      try {
        return await run(tiedTo(ctx, live));
      } finally {
        live.on = false;
        lease.running -= 1;
        settle();
      }
    });
    const settle = (): void => {
      if (!lease.leased || lease.running > 0 || server.transport !== undefined) return;
      lease.leased = false;
      if (this.idle.length < MAX_IDLE) this.idle.push({ server, lease });
    };
    // The SDK chains its own exchange hook in front of this one and puts this one back after.
    server.onclose = settle;
    return server;
  }

  get idleCount(): number {
    return this.idle.length;
  }
}
