/**
 * How long a command line has kept the server's one thread without a pause.
 *
 * just-bash awaits every command, but on promises that are already settled: a line of shell
 * builtins, loops and functions (`i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done`) never lets
 * the event loop turn. No timer, socket or other session ran until it ended: at load ~15 such a
 * line held /healthz and every other user's call for 20–90 s, and its own deadline timer could
 * not fire (with a 2 s deadline it ran 74 s, until just-bash's command count stopped it).
 * just-bash has no asynchronous hook between commands, so the line cannot be made to pause; it
 * does read its command limit, synchronously, as it charges each command it runs (see
 * everyCommand). That is where the line is watched: sandbox.ts checks its deadline there, and
 * stops it once it has held the thread for the hold limit.
 *
 * A pause is seen by a ticker: a timer every TICK_MS while any line runs, which only a free event
 * loop can fire. A tick since the line's last step means the loop turned (a plugin call or a
 * file read was awaited, other sessions were served), and the count starts again.
 */

/**
 * Call `step` as each command of `bash`'s lines is charged: its limits object, which every line's
 * budget reads `maxCommandCount` from once per command (just-bash 3.4, `ExecutionScope.consume`),
 * gets a getter there. Its coverage writer would be the public hook, but with one set just-bash
 * imports the flag tables of all its commands inside the running line, which its own defence in
 * depth refuses (`Module._load is blocked`), and every command failed. False when `bash` does not
 * hold its limits so (another just-bash): lines then run unwatched, as before, and
 * test/text.thread-hold.test.ts fails.
 */
export function everyCommand(bash: object, step: () => void): boolean {
  const limits = (bash as { limits?: unknown }).limits;
  if (!limits || typeof limits !== "object") return false;
  const own = Object.getOwnPropertyDescriptor(limits, "maxCommandCount");
  if (!own || typeof own.value !== "number" || !own.writable || !own.configurable) return false;
  const value = own.value;
  Object.defineProperty(limits, "maxCommandCount", {
    get() {
      step();
      return value;
    },
    enumerable: true,
    configurable: true,
  });
  return true;
}

/** Captured at load: just-bash's defence in depth blocks `performance` while a line runs, and the steps are counted then. */
const now = performance.now.bind(performance);

/** How often the ticker looks; well below any hold limit, so a free loop is always seen. */
const TICK_MS = 20;
/**
 * The most one step counts. A single command (jq over a large result, a long `seq`) cannot be
 * stopped midway, its own limits bound it, and the commands after it should not pay for the
 * time it took: it counts as this much, so a loop of such commands is still stopped.
 */
const STEP_MOST_MS = 50;

let running = 0;
let lastTick = now();
let ticker: NodeJS.Timeout | undefined;

function startTicker(): void {
  if (running++ > 0) return;
  lastTick = now();
  ticker = setInterval(() => (lastTick = now()), TICK_MS);
  // The ticker only watches lines; it must not keep a process alive.
  ticker.unref();
}

function stopTicker(): void {
  if (--running > 0) return;
  clearInterval(ticker);
  ticker = undefined;
}

export interface ThreadHold {
  /** A step of the line (a command begins): true once the line has held the thread past the limit. */
  step(): boolean;
  /** The milliseconds counted since the line last paused. */
  readonly heldMs: number;
  dispose(): void;
}

/** Watch one command line, from now; `limitMs` undefined: count, never past (the hold limit is off). */
export function watchThreadHold(limitMs: number | undefined): ThreadHold {
  startTicker();
  let last = now();
  let held = 0;
  let disposed = false;
  return {
    step() {
      const at = now();
      if (lastTick > last) held = 0;
      else held += Math.min(at - last, STEP_MOST_MS);
      last = at;
      return limitMs !== undefined && held > limitMs;
    },
    get heldMs() {
      return held;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      stopTicker();
    },
  };
}

/** What stopped a line that held the thread past `limitMs`: said on its stderr, and the reason its commands' calls are cancelled with. */
export function heldLine(heldMs: number, limitMs: number | undefined): string {
  return `the command line kept the server busy for ${Math.round(heldMs)} ms without a pause and was stopped (the hold limit, ${limitMs} ms, AGENT_TOOLS_EXEC_HOLD_MS): every other session waits while a shell loop runs; the session keeps its files, env and cwd from before it`;
}
