import { setTimeout as sleep } from "node:timers/promises";
import { whenBodyEnds } from "../shared/body-end.js";

/**
 * Paces how often a Streamable HTTP connection opens the server's event streams (its GETs: the
 * background stream the server sends notifications on, and the reopening of an answer's stream),
 * and gives them up when the server keeps ending them at once.
 *
 * Why: the SDK reopens an event stream that ended after the server's `retry:` interval when the
 * server sent one, and counts a stream that ended cleanly as a fresh start. A server that ends
 * each stream at once with `retry: 0` (hostile or broken) was reopened about 45 times a second,
 * forever: 2,926 GETs in 65 s, 22% of a core and RSS 85 → 113 MB while idle. The SDK's
 * `reconnectionOptions` cannot bound that (the server's `retry` replaces their delay, and the
 * attempt count they cap is reset by every clean end), so the pacing is done at the fetch the
 * transport is given, which sees every GET whatever the SDK schedules:
 *  - a stream is reopened no sooner than `minGapMs` after the last one ended, whatever the server
 *    asked (`retry: 0` does not mean 0);
 *  - each stream that ends within `quickMs` of opening doubles that gap;
 *  - after `maxQuickEnds` such streams in a row the event stream is given up: the next GET is
 *    answered 405 here, which the SDK reads as "this server offers no event stream" and stops
 *    (an answer's stream waiting on it is over, as with a real 405). `onGiveUp` is told once.
 * A stream that stayed open `quickMs` or longer starts the count again. Calls are POSTs, paced by
 * nothing here: they keep working when the event stream is given up.
 */

export interface EventStreamPacing {
  /** The shortest wait between the end of one stream and the next GET. */
  minGapMs: number;
  /** A stream that ends sooner than this after it opened counts as ended at once. */
  quickMs: number;
  /** Streams ended at once in a row, after which the event stream is given up. */
  maxQuickEnds: number;
}

export const EVENT_STREAM_PACING: EventStreamPacing = { minGapMs: 1000, quickMs: 10_000, maxQuickEnds: 5 };

/** What the server is told it did not get: the status the SDK reads as "no event stream here". */
const GIVEN_UP = { status: 405, statusText: "Event stream given up by the runtime (the server kept ending it at once)" };

/** `base`, pacing its GETs as above; one per connection (the counts are the connection's). */
export function pacedEventStreams(base: typeof fetch, onGiveUp: (quickEnds: number) => void, pacing: EventStreamPacing = EVENT_STREAM_PACING): typeof fetch {
  let quickEnds = 0;
  let lastEnd: number | undefined;
  let toldGiveUp = false;
  return async (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (method.toUpperCase() !== "GET") return base(input, init);
    if (quickEnds >= pacing.maxQuickEnds) {
      if (!toldGiveUp) onGiveUp(quickEnds);
      toldGiveUp = true;
      return new Response(null, GIVEN_UP);
    }
    if (lastEnd !== undefined) {
      const wait = pacing.minGapMs * 2 ** Math.max(0, quickEnds - 1) - (performance.now() - lastEnd);
      // Aborted with the connection (its close): the SDK reads the rejection as its own abort.
      if (wait > 0) await sleep(wait, undefined, { ref: false, ...(init?.signal ? { signal: init.signal } : {}) });
    }
    const opened = performance.now();
    const ended = (): void => {
      lastEnd = performance.now();
      quickEnds = lastEnd - opened < pacing.quickMs ? quickEnds + 1 : 0;
    };
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      ended();
      throw error;
    }
    return whenBodyEnds(response, ended);
  };
}
