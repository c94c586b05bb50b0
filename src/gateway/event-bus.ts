import { randomUUID } from "node:crypto";
import type { PubSub } from "../state/types.js";

/**
 * The SDK's `ServerEventBus` (what `createMcpHandler` publishes change notifications on and
 * `subscriptions/listen` streams read from) over the shared state's pub/sub, so a tool-list change
 * seen by one instance reaches the modern clients subscribed on every instance. Structural: the
 * SDK's interface is `publish(event)` and `subscribe(listener) → unsubscribe`. Local listeners hear
 * an event at once (as the in-memory bus does); other instances hear it through Redis, and an
 * instance skips the copy of its own events that comes back.
 */

export interface FleetEventBus<E> {
  publish(event: E): void;
  subscribe(listener: (event: E) => void): () => void;
  close(): void;
}

const TOPIC = "server-events";

export function createFleetEventBus<E>(pubsub: PubSub, onError: (error: Error) => void = () => undefined): FleetEventBus<E> {
  const origin = randomUUID();
  const listeners = new Set<(event: E) => void>();
  const deliver = (event: E): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        onError(error as Error);
      }
    }
  };
  const unsubscribe = pubsub.subscribe(TOPIC, (message) => {
    try {
      const { from, event } = JSON.parse(message) as { from: string; event: E };
      if (from !== origin) deliver(event);
    } catch (error) {
      onError(error as Error);
    }
  });
  return {
    publish(event) {
      deliver(event);
      pubsub.publish(TOPIC, JSON.stringify({ from: origin, event })).catch((error: Error) => onError(error));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close() {
      unsubscribe();
      listeners.clear();
    },
  };
}
