import type { JSONRPCMessage, Server } from "@modelcontextprotocol/server";

/**
 * Have `server` answer a message itself, as its transport delivers it, when `answer` returns a
 * reply for it; every other message goes on to the SDK. Put in front of the handler `connect`
 * installs (the SDK delivers nothing before `connect` resolves), so it sees messages in the SDK's
 * own order, batch elements one by one. Several may be put on one server: each wraps the last.
 */
export function answerFirst(server: Server, answer: (message: JSONRPCMessage) => JSONRPCMessage | undefined): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    if (!deliver) return;
    transport.onmessage = (message: JSONRPCMessage, extra) => {
      const reply = answer(message);
      if (!reply) return deliver(message, extra);
      transport.send(reply).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
    };
  };
}
