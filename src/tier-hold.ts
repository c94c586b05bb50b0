import v8 from "node:v8";
import { isOffValue } from "./env-switch.js";
import { zeroOrMore } from "./setting-numbers.js";

/**
 * V8's optimizing compiler (TurboFan) held back until the process has done enough work to pay
 * for it: until then the code runs in V8's interpreter and its baseline compiler (Sparkplug),
 * which compiles as it goes for next to nothing.
 *
 * Why: TurboFan compiles a function once it is hot, on a second thread, and the bill for the call
 * path (the facade's reader, the pipeline, the adapter's lane, Node's streams and timers) is
 * 150–230 ms of CPU, spent in the process's first seconds of calls (docs/performance-log.md,
 * "Session 8: the window is the JIT's warm-up"). On 2 cores that thread competes with the
 * agent's client and the downstream server, and a server an agent starts for one session makes
 * tens to a few thousand calls: the compiled code never earns its compile back. Measured on the
 * 16-caller window of bench/perf.ts, the runtime spends about 110 µs of CPU a call held against
 * about 180 µs with TurboFan compiling; warmed, TurboFan's code is 10–40% cheaper a call, so
 * after about 1–2 s of CPU it has paid for itself. Hence the default: the hold is lifted once
 * the process has used 2 s of CPU (all threads: a search embedding a catalog counts too), and a
 * long-running server then gets V8's usual tiers.
 *
 * How: `--no-turbofan`, and `--turbofan` (V8's default) to lift it. V8 reads the flag at each
 * tiering decision, so it applies from the moment it is set, though Node says flags set after
 * start may do nothing: test/tier-hold.test.ts checks on a real server that a hot function stays
 * in baseline code under the hold and reaches TurboFan after the lift. Only TurboFan is held: on
 * a Node whose V8 runs Maglev (its fast-compiling middle tier; on by default from Node 22), Maglev
 * goes on working. (`--max-opt=1` would hold both, but switches `--turbofan` and `--maglev` off by
 * implication, and the lift could not know which of them this V8 had on.) The CPU used is read by a timer that does
 * not keep the process alive: every second while the process works, backing off to once a
 * minute while it is idle.
 *
 * Not applied when node was started with a flag that chooses the tiers itself (`--max-opt`,
 * `--jitless`, `--no-opt`, `--turbofan`, `--maglev`, `--sparkplug` and their `--no-` and
 * `--always-` forms), or with AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS=0 (or `off`).
 */

export const DEFAULT_OPTIMIZE_AFTER_CPU_MS = 2_000;

const HOLD_FLAG = "--no-turbofan";
const LIFT_FLAG = "--turbofan";

const FIRST_CHECK_MS = 1_000;
const IDLE_CHECK_LIMIT_MS = 60_000;
/** CPU a check interval must have used for the process to count as working (and checked again soon). */
const WORKING_CPU_MS = 10;

const TIER_FLAG = /^--(no-|always-)?(max-opt|jitless|opt|turbofan|maglev|sparkplug)(?:=|$)/;

/** Whether the flags node was started with already choose V8's compiler tiers. */
export function tiersChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((flag) => TIER_FLAG.test(flag.replace(/_/g, "-")));
}

/**
 * AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: milliseconds of process CPU (0 or `off`: no hold). Unset or
 * blank: the default. Anything else is said through `warn`, naming the variable and what it takes,
 * and the default applies.
 */
export function optimizeAfterFromEnv(value: string | undefined, warn: (message: string) => void): number {
  const text = value?.trim();
  if (!text) return DEFAULT_OPTIMIZE_AFTER_CPU_MS;
  if (isOffValue(text)) return 0;
  const ms = zeroOrMore(text);
  if (ms !== undefined) return ms;
  warn(`AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS='${text}' is not a number of milliseconds of CPU (0 or 'off' for no hold); using ${DEFAULT_OPTIMIZE_AFTER_CPU_MS}`);
  return DEFAULT_OPTIMIZE_AFTER_CPU_MS;
}

/** What the hold needs from the process; the defaults are the real ones, tests pass their own. */
export interface TierHoldHooks {
  /** Process CPU (user + system, all threads) in microseconds, as `process.cpuUsage()` gives it. */
  cpuMicros?: () => number;
  setFlags?: (flags: string) => void;
  /** Runs `check` after `ms`; the timer must not keep the process alive. */
  schedule?: (check: () => void, ms: number) => void;
  log?: { debug(message: string, fields?: Record<string, unknown>): void; warn(message: string): void };
}

export interface TierHold {
  /** The CPU (ms) at which the hold is lifted. */
  readonly afterCpuMs: number;
  lifted(): boolean;
  /** Lifts the hold now (once; later calls do nothing). */
  lift(): void;
}

function processCpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

function unrefTimer(check: () => void, ms: number): void {
  setTimeout(check, ms).unref();
}

/**
 * Holds V8's optimizing compiler until this process has used `AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS`
 * of CPU (module comment). Returns undefined when no hold applies (switched off, or the tiers were
 * chosen on node's command line).
 */
export function holdOptimizingCompiler(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
  hooks: TierHoldHooks = {},
): TierHold | undefined {
  const { cpuMicros = processCpuMicros, setFlags = (flags: string) => v8.setFlagsFromString(flags), schedule = unrefTimer, log } = hooks;
  const afterCpuMs = optimizeAfterFromEnv(env.AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS, (message) => log?.warn(message));
  if (afterCpuMs === 0 || tiersChosen(execArgv, env.NODE_OPTIONS)) return undefined;
  const usedMs = (): number => cpuMicros() / 1000;
  if (usedMs() >= afterCpuMs) return undefined;
  setFlags(HOLD_FLAG);
  let isLifted = false;
  const lift = (): void => {
    if (isLifted) return;
    isLifted = true;
    setFlags(LIFT_FLAG);
    log?.debug("optimizing compiler on", { cpuMs: Math.round(usedMs()), afterCpuMs });
  };
  let lastMs = usedMs();
  let waitMs = FIRST_CHECK_MS;
  const check = (): void => {
    if (isLifted) return;
    const nowMs = usedMs();
    if (nowMs >= afterCpuMs) return lift();
    // Working: look again in a second. Idle: each look twice as late, up to a minute, so an idle
    // server is not woken every second for a figure that does not move.
    waitMs = nowMs - lastMs >= WORKING_CPU_MS ? FIRST_CHECK_MS : Math.min(waitMs * 2, IDLE_CHECK_LIMIT_MS);
    lastMs = nowMs;
    schedule(check, waitMs);
  };
  schedule(check, waitMs);
  log?.debug("optimizing compiler held", { afterCpuMs });
  return { afterCpuMs, lifted: () => isLifted, lift };
}
