import type { Client } from "@modelcontextprotocol/client";

/**
 * A 2026-07-28 server sends `notifications/tools/list_changed` only on a `subscriptions/listen`
 * stream the client opened (a 2025-era one sends it unasked). So for a modern server that
 * advertises `tools.listChanged`, open that stream once the connection is up: the SDK hands what
 * arrives on it to the same notification handler a 2025-era server's reaches, and the plugin is
 * listed again at once. Not awaited: the server's acknowledgement is one more round trip, and
 * nothing a call needs waits for it. The stream ends with the connection (the SDK settles it when
 * the transport closes), and the next connection opens its own.
 */
export function listenForToolChanges(client: Client, say: (message: string) => void): void {
  if (client.getProtocolEra() !== "modern" || client.getServerCapabilities()?.tools?.listChanged !== true) return;
  client.listen({ toolsListChanged: true }).then(
    (subscription) => {
      if (subscription.honoredFilter.toolsListChanged !== true) say("subscriptions/listen: the server did not agree to send tools/list_changed; its tool list is read again only on a new connection");
      void subscription.closed.then((how) => {
        if (how !== "local") say(`subscriptions/listen ended (${how}); tool list changes are heard again from the next connection`);
      });
    },
    (error: unknown) => say(`subscriptions/listen failed (${error instanceof Error ? error.message : String(error)}); tool list changes are heard again from the next connection`),
  );
}
