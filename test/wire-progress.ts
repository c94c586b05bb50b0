import assert from "node:assert/strict";

/**
 * Progress notifications as a connected client's transport reads them, handed to `listener` at
 * once. Why not the SDK's `onprogress`: both SDK clients run a progress handler a microtask after
 * reading the notification but settle the call as they read its answer, dropping the handler, so a
 * last step read in one chunk with the answer (a loaded machine, the runtime relaying both
 * together) never reaches `onprogress` although it was sent. A test that checks what the runtime
 * relays reads it here. (The client must still ask for progress: pass `onprogress: () => undefined`.)
 */
export interface WireProgress {
  progressToken?: unknown;
  progress: number;
  total?: number;
  message?: string;
}

type Tappable = { onmessage?: ((message: never, extra?: never) => void) | undefined };

export function tapProgress(transport: Tappable | undefined, listener: (params: WireProgress) => void): void {
  const deliver = transport?.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
  assert.ok(transport && deliver, "the client is connected");
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    const { method, params } = message as { method?: string; params?: WireProgress };
    if (method === "notifications/progress" && params) listener(params);
    deliver.call(transport, message, extra);
  }) as Tappable["onmessage"];
}

/** The fields a test compares: progress, and total and message when sent. */
export const progressFields = (params: WireProgress): Omit<WireProgress, "progressToken"> => ({
  progress: params.progress,
  ...(params.total !== undefined ? { total: params.total } : {}),
  ...(params.message !== undefined ? { message: params.message } : {}),
});
