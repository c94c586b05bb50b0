import { durationText } from "../duration-text.js";

/**
 * A log line that may come as often as something outside the runtime likes said at most once per
 * `intervalMs` for each key: the first at once, the repeats counted and said in one line at the
 * end of the interval in which they came ("…: 37 more times in 1 minute"). An interval
 * without a repeat ends the count: the next one is said at once again.
 *
 * Why: a downstream server that changes its tool list on every call (one soak run: 3,000 changes)
 * wrote one `plugin 'x' changed its tool list` line per change, so a chatty server could fill the
 * log. Counting keeps what the line says (it changes, and how often) at one line a minute.
 */
export interface SummedLines {
  /** Say `line` for `key` now, or count it for the summary line of the interval under way. */
  say(key: string, line: string): void;
  /** Says the counts not yet said and stops the timers (the runtime's close). */
  close(): void;
}

interface Counting {
  /** The line last said or counted for the key (the summary repeats it). */
  line: string;
  /** Repeats since the key's line was last said. */
  more: number;
  timer: NodeJS.Timeout;
}

export function summedLines(write: (line: string) => void, intervalMs = 60_000): SummedLines {
  const counting = new Map<string, Counting>();
  const every = durationText(intervalMs);
  const summary = (entry: Counting): string => `${entry.line}: ${entry.more} more time${entry.more === 1 ? "" : "s"} in ${every} (counted: this line is written at most once per ${every})`;
  const intervalOver = (key: string): void => {
    const entry = counting.get(key);
    if (!entry) return;
    if (entry.more === 0) {
      counting.delete(key);
      return;
    }
    write(summary(entry));
    entry.more = 0;
    entry.timer = startTimer(key);
  };
  const startTimer = (key: string): NodeJS.Timeout => setTimeout(() => intervalOver(key), intervalMs).unref();
  return {
    say(key, line) {
      const entry = counting.get(key);
      if (entry) {
        entry.line = line;
        entry.more += 1;
        return;
      }
      write(line);
      counting.set(key, { line, more: 0, timer: startTimer(key) });
    },
    close() {
      for (const entry of counting.values()) {
        clearTimeout(entry.timer);
        if (entry.more > 0) write(summary(entry));
      }
      counting.clear();
    },
  };
}
