import type { Client } from "@modelcontextprotocol/client";
import { errorMessage } from "./errors.js";

/** What listening needs from its connection. */
export interface ToolChangeListening {
  /** A detail for the debug log (the connection adds the server's name and masks it). */
  say(message: string): void;
  /** Said once, on stderr, when listening is given up on this connection. */
  warn(message: string): void;
  /** Read the tool list again: a listen stream was reopened, and a change made in the gap was announced on no stream. */
  relist(): void;
  /** The connection is closed or dropped: nothing is reopened on it. */
  gone(): boolean;
}

/**
 * Waits before each reopening in a row; one more end past the last gives up. Short, as the
 * catalog is stale for as long as nothing listens; growing, so a server that refuses or ends the
 * stream at once is asked a handful of times in about eight seconds, not in a loop.
 */
export const REOPEN_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 4000];
/** A stream that stayed open this long ended for a reason of its own (a server's periodic cut), not at once: the reopenings count again from zero. */
const SETTLED_MS = 60_000;

/**
 * A 2026-07-28 server sends `notifications/tools/list_changed` only on a `subscriptions/listen`
 * stream the client opened (a 2025-era one sends it unasked). So for a modern server that
 * advertises `tools.listChanged`, open that stream once the connection is up: the SDK hands what
 * arrives on it to the same notification handler a 2025-era server's reaches, and the plugin is
 * listed again at once. Not awaited: the server's acknowledgement is one more round trip, and
 * nothing a call needs waits for it.
 *
 * The server may end the stream while the connection stays up (an HTTP response stream closes,
 * a stdio server answers the listen request). The SDK does not listen again by itself, so this
 * does, after a growing wait, and reads the tool list again once the new stream is acknowledged:
 * a change made while nothing listened was announced to no one. A server that keeps refusing or
 * ending it at once is given up on after REOPEN_DELAYS_MS.length reopenings, with one warning;
 * the next connection listens afresh. A closed connection's stream is not reopened (the next
 * connection opens its own).
 */
export function listenForToolChanges(client: Client, listening: ToolChangeListening): void {
  if (client.getProtocolEra() !== "modern" || client.getServerCapabilities()?.tools?.listChanged !== true) return;
  let reopenings = 0;
  const again = (why: string): void => {
    if (listening.gone()) return;
    if (reopenings >= REOPEN_DELAYS_MS.length) {
      listening.warn(`${why} after ${reopenings} reopenings in a row; its tool list changes are no longer heard on this connection (they are again from the next connection)`);
      return;
    }
    const delayMs = REOPEN_DELAYS_MS[reopenings] ?? 0;
    reopenings += 1;
    listening.say(`${why}; listening again in ${delayMs} ms`);
    setTimeout(() => {
      if (!listening.gone()) open(true);
    }, delayMs).unref();
  };
  const open = (reopened: boolean): void => {
    const openedAt = Date.now();
    client.listen({ toolsListChanged: true }).then(
      (subscription) => {
        if (subscription.honoredFilter.toolsListChanged !== true) {
          // Reopening would be refused the same way: the list is read again only on a new connection.
          listening.say("subscriptions/listen: the server did not agree to send tools/list_changed; its tool list is read again only on a new connection");
          return;
        }
        if (reopened) listening.relist();
        void subscription.closed.then((how) => {
          if (how === "local") return;
          if (Date.now() - openedAt >= SETTLED_MS) reopenings = 0;
          again(`subscriptions/listen ended (${how})`);
        });
      },
      (error: unknown) => again(`subscriptions/listen failed (${errorMessage(error)})`),
    );
  };
  open(false);
}
