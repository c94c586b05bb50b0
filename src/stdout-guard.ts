/**
 * stdout kept for the answer a process owes: the JSON-RPC of the stdio server, the JSON of a CLI
 * command. Plugin code (an adapter, a skill, a library either imports) may print with
 * `console.log` or `process.stdout.write` at import or during a call; on the stdio server's
 * stdout that line lands between JSON-RPC messages and breaks the client's reader, and before a
 * command's JSON it breaks `| jq`. Once `sendStrayStdoutToStderr` has run, every writer that
 * goes through `process.stdout.write` (the console's log, info, debug, dir, table… included:
 * the console looks the method up on each call) reaches stderr instead, and only `writeStdout`,
 * which holds stdout's own write, still reaches stdout.
 *
 * Not covered: a raw `fs.writeSync(1, …)` (the descriptor itself is not moved, so the process's
 * own writes stay plain stream writes).
 */

/** stdout's own write, taken when this module loads: before any plugin code has run. */
const stdoutOwnWrite = process.stdout.write;

/** Writes to the real stdout, whether or not the other writers were sent to stderr. */
export function writeStdout(text: string): boolean {
  return stdoutOwnWrite.call(process.stdout, text);
}

/** Sends every later `process.stdout.write` (and so the console's stdout methods) to stderr. Idempotent. */
export function sendStrayStdoutToStderr(): void {
  process.stdout.write = function toStderr(...args: unknown[]): boolean {
    return (process.stderr.write as (...written: unknown[]) => boolean).apply(process.stderr, args);
  } as typeof process.stdout.write;
}
