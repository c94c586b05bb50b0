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

/**
 * What each text sent to stderr passes through first: the redactor of every runtime in this
 * process (maskStrayStdout), so a plugin's `console.log(process.env.API_KEY)` is masked like its
 * `context.log` lines. Only while stdout is redirected: otherwise its writes are not the
 * runtime's to touch. Bytes written as a Buffer go on as they are (console methods write text;
 * decoding and encoding raw bytes again could change them).
 */
const masks = new Set<(text: string) => string>();
let redirected = false;

function masked(text: string): string {
  let out = text;
  for (const mask of masks) out = mask(out);
  return out;
}

/** Sends every later `process.stdout.write` (and so the console's stdout methods) to stderr. Idempotent. */
export function sendStrayStdoutToStderr(): void {
  redirected = true;
  process.stdout.write = function toStderr(chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === "string" ? masked(chunk) : chunk;
    return (process.stderr.write as (...written: unknown[]) => boolean).call(process.stderr, text, ...rest);
  } as typeof process.stdout.write;
}

/**
 * Masks what `redact` masks in every write sent to stderr by sendStrayStdoutToStderr; returns
 * the function that stops (a runtime's close). Nothing while stdout is not redirected: a runtime
 * embedded in a process that keeps its stdout.
 */
export function maskStrayStdout(redact: (text: string) => string): () => void {
  if (!redirected) return () => undefined;
  masks.add(redact);
  return () => masks.delete(redact);
}
