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
 * process (maskStrayStdout), so a plugin that prints process.env.API_KEY to stdout is masked like its
 * `context.log` lines. Only while stdout is redirected: otherwise its writes are not the
 * runtime's to touch. Bytes written as a Buffer go on as they are (console methods write text;
 * decoding and encoding raw bytes again could change them), and are not masked.
 */
const masks = new Set<(text: string) => string>();
let redirected = false;

function masked(text: string): string {
  let out = text;
  for (const mask of masks) out = mask(out);
  return out;
}

/**
 * Redirected text is masked a line at a time, not a write at a time: a secret printed in two
 * writes (`write(key.slice(0, 10)); write(key.slice(10) + "\n")`) is whole only in their joined
 * text. What follows a write's last newline waits here until a newline comes, FLUSH_AFTER_MS have
 * passed, PENDING_CAP characters pile up, bytes are written, a runtime stops masking, or the
 * process ends: nothing is held back for good, nor for long.
 */
const FLUSH_AFTER_MS = 50;
const PENDING_CAP = 64 * 1024;
let pending = "";
let idleFlush: ReturnType<typeof setTimeout> | undefined;

function writeStderr(text: string | Uint8Array, ...rest: unknown[]): boolean {
  return (process.stderr.write as (...written: unknown[]) => boolean).call(process.stderr, text, ...rest);
}

/** Writes what waits, masked. */
function flushPending(): void {
  if (idleFlush) clearTimeout(idleFlush);
  idleFlush = undefined;
  if (!pending) return;
  const text = pending;
  pending = "";
  writeStderr(masked(text));
}

/** A redirected text write: its complete lines go out masked, the rest waits for its line's end. */
function writeLines(text: string, callback: ((error?: Error | null) => void) | undefined): boolean {
  pending += text;
  const end = pending.length >= PENDING_CAP ? pending.length : pending.lastIndexOf("\n") + 1;
  if (end === 0) {
    idleFlush ??= setTimeout(flushPending, FLUSH_AFTER_MS).unref();
    if (callback) process.nextTick(callback);
    return true;
  }
  const lines = pending.slice(0, end);
  pending = pending.slice(end);
  if (idleFlush) clearTimeout(idleFlush);
  idleFlush = pending ? setTimeout(flushPending, FLUSH_AFTER_MS).unref() : undefined;
  return callback ? writeStderr(masked(lines), callback) : writeStderr(masked(lines));
}

/** Sends every later `process.stdout.write` (and so the console's stdout methods) to stderr. Idempotent. */
export function sendStrayStdoutToStderr(): void {
  if (!redirected) {
    // stderr writes are synchronous on files, terminals and (on POSIX) pipes: what waits is out
    // before the process is.
    process.on("beforeExit", flushPending);
    process.on("exit", flushPending);
  }
  redirected = true;
  process.stdout.write = function toStderr(chunk: unknown, ...rest: unknown[]): boolean {
    const [encoding, callback] = typeof rest[0] === "function" ? [undefined, rest[0]] : [rest[0], rest[1]];
    const isText = typeof chunk === "string" && (encoding === undefined || encoding === "utf8" || encoding === "utf-8");
    if (isText) return writeLines(chunk, typeof callback === "function" ? (callback as (error?: Error | null) => void) : undefined);
    // Bytes (or text in another encoding, "hex"…) go on as they are, after the text before them.
    flushPending();
    return writeStderr(chunk as Uint8Array, ...rest);
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
  return () => {
    // What waits is masked by this runtime's secrets too, before it stops.
    flushPending();
    return masks.delete(redact);
  };
}
