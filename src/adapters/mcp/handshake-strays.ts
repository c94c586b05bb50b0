import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { echoedName } from "../../runtime/argument-value.js";

/**
 * Answers that arrive during the MCP handshake with an id no request of it had.
 *
 * Why: the SDK's client drops such an answer (it reports it only to `onerror`, which is not yet
 * listened to while connecting) and waits for the real one until the start times out, so a
 * server that answered `initialize` with the wrong id was reported as silent ("did not answer
 * the MCP handshake", with a hint to run its command by hand), when it did answer: a bug of the
 * server's, which its start error should name.
 */
export class HandshakeStrays {
  readonly #sent = new Set<string | number>();
  #stray: string | number | undefined;
  #watching = false;

  /** Watch `transport`'s requests while `connect` runs; its `send` is as it was afterwards. */
  async during<T>(transport: Transport, connect: () => Promise<T>): Promise<T> {
    const own = Object.getOwnPropertyDescriptor(transport, "send");
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (this.#watching && "method" in message && "id" in message) this.#sent.add(message.id);
      return send(message, options);
    };
    this.#watching = true;
    try {
      return await connect();
    } finally {
      this.#watching = false;
      if (own) Object.defineProperty(transport, "send", own);
      else delete (transport as { send?: unknown }).send;
    }
  }

  /** Each message the server sent, before the SDK reads it. */
  seen(message: JSONRPCMessage): void {
    if (!this.#watching || "method" in message || !("id" in message)) return;
    const id = (message as { id?: unknown }).id;
    if ((typeof id === "string" || typeof id === "number") && !this.#sent.has(id)) this.#stray ??= id;
  }

  /** What the handshake met, for a start that timed out: "it answered with id 1000, which matches no request …"; undefined when it met no such answer. */
  said(): string | undefined {
    if (this.#stray === undefined) return undefined;
    const ids = [...this.#sent].map((id) => JSON.stringify(id)).join(", ");
    return `it answered with id ${echoedName(JSON.stringify(this.#stray))}, which matches no request of the handshake (${ids ? `those had ids ${ids}` : "none was sent"}): a bug in the server, whose answer was dropped`;
  }
}
