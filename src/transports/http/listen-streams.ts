import type { ServerResponse } from "node:http";

/**
 * The open 2026-07-28 `subscriptions/listen` streams of the HTTP facade. A listen stream runs no
 * call: it only carries notifications until the client or the server ends it. So a drain does
 * not wait for it and a shutdown does not answer it as an interrupted request ("whether it took
 * effect is unknown" said of a subscription, after the whole drain was waited out for it). At
 * close, the SDK ends each stream as the spec asks (the listen request's final result, naming the
 * subscription: modern.ts `close`), and the server waits here for those ends to reach the sockets
 * before it closes the connections.
 */
export class ListenStreams {
  readonly #open = new Set<ServerResponse>();

  /** Tracks `res` until it closes. */
  add(res: ServerResponse): void {
    this.#open.add(res);
    res.once("close", () => this.#open.delete(res));
  }

  get size(): number {
    return this.#open.size;
  }

  /** Resolves once every stream still open has ended, or after `ms` (a client that reads nothing does not hold the shutdown). */
  async ended(ms: number): Promise<void> {
    if (this.#open.size === 0) return;
    const ends = [...this.#open].map((res) => new Promise<void>((resolve) => res.once("finish", resolve).once("close", resolve)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ends), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
  }
}
