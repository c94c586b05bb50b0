import type { Redactor } from "./adapters/shared/redact.js";
import type { Logger } from "./adapters/types.js";

/**
 * A stderr logger. stdout belongs to the stdio transport, so nothing here ever writes to it.
 * Level from AGENT_TOOLS_LOG (debug | info | warn | error | silent), default info.
 */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof LEVELS;

function levelFromEnv(value: string | undefined): Level {
  const normalised = (value ?? "").trim().toLowerCase();
  return normalised in LEVELS ? (normalised as Level) : "info";
}

export function createLogger(scope = "agent-tools", level: Level = levelFromEnv(process.env.AGENT_TOOLS_LOG)): Logger {
  const threshold = LEVELS[level];
  const write = (at: Exclude<Level, "silent">, message: string, fields?: Record<string, unknown>): void => {
    if (LEVELS[at] < threshold) return;
    const suffix = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
    // Escaped here, not at each call site: a message may carry text a client or a downstream
    // chose (a tool name, a server's stderr), and one call must always be one line.
    process.stderr.write(`[${scope}] ${at}: ${oneLine(`${message}${suffix}`)}\n`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Text a client chose (a JSON-RPC method, a tool name, a header) made safe inside one log line:
 * each control character becomes an escape (`\n`, `\u001b`), so a newline in a request
 * cannot start a forged line and an escape sequence cannot rewrite a terminal.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

// The same class without the g flag: `test` on a global regex keeps state between calls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HAS_CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Whether `text` holds a control character of escapeControls's class (a newline, ESC, BEL…). */
export function hasControlCharacter(text: string): boolean {
  return HAS_CONTROL_CHARACTER.test(text);
}

/** A log line's text with its control characters escaped; most lines have none, so one test first. */
function oneLine(text: string): string {
  return hasControlCharacter(text) ? escapeControls(text) : text;
}

/**
 * `log` with each line's credentials masked, its message and its fields, before it is written:
 * the runtime's logger, which it hands plugin code too (an adapter's `options.log`, a call's or a
 * skill's `context.log`). A plugin's lines are its own code's: one may print a credential it read
 * from the environment, as its errors may. A line costs one pass of the redactor (lines are rare;
 * the masking is the same whatever level the line is written at).
 */
export function maskedLogger(log: Logger, redactor: Pick<Redactor, "redact" | "redactValue">): Logger {
  // String(): plugin code is JavaScript, and may log a number or an object as the message.
  const masked = (message: unknown, fields: Record<string, unknown> | undefined): [string, Record<string, unknown>?] =>
    fields === undefined ? [redactor.redact(String(message))] : [redactor.redact(String(message)), redactor.redactValue(fields)];
  return {
    debug: (m, f) => log.debug(...masked(m, f)),
    info: (m, f) => log.info(...masked(m, f)),
    warn: (m, f) => log.warn(...masked(m, f)),
    error: (m, f) => log.error(...masked(m, f)),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The logger of a one-off command whose answer already holds what the `info` lines would say
 * (`status`'s `missing` lists the plugins not configured; `tokens` prints them): warnings and
 * errors only, unless AGENT_TOOLS_LOG asks for another level.
 */
export function oneOffCommandLogger(scope = "agent-tools"): Logger {
  return createLogger(scope, process.env.AGENT_TOOLS_LOG?.trim() ? levelFromEnv(process.env.AGENT_TOOLS_LOG) : "warn");
}
