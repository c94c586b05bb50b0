import type { Writable } from "node:stream";

/**
 * Joins the lines written to a stream within one turn of the event loop into one write.
 *
 * Both stdio hops of a call (the facade's stdout, a downstream server's stdin) carry one
 * JSON-RPC message per line. Written one by one, every message is its own write syscall and,
 * on the other side, its own wake-up and read; under many concurrent callers that was the
 * largest single cost of the runtime process (about a sixth of its CPU in a profile of 16
 * callers). Messages queued in the same turn (all the answers one read of the downstream's
 * stdout resolves, all the requests one read of stdin starts) now leave in one write on
 * `process.nextTick`, so nothing waits a timer. A tick queued from a promise callback (where the
 * SDK sends from) runs once the microtask queue is empty, so it takes every line that queue adds;
 * a line written straight from an I/O callback leaves before that callback's promise work runs.
 *
 * Every `write` of a batch settles with that batch: resolved once the stream took it (or, when
 * the stream asked to wait, on its `drain`), rejected when the stream failed or was gone. Only a
 * batch that provably never left rejects with NotSent ("Not connected", the MCP SDK's word for it,
 * on which connection.ts sends a request again): the stream was already gone before the batch was
 * written, or the write of the batch failed there and then (EPIPE: the reader had closed; a failed
 * first write syscall takes no byte). A stream that fails later, or closes while a handed-over
 * batch waits for `drain`, rejects with its error or WriteInterrupted, since the other side may
 * have read and run any line of it, and sending it again could run a write twice.
 *
 * While the stream asks to wait (a batch waits for `drain`), new lines are held and leave as one
 * batch once it drains: only one batch at a time listens to the stream. Before, every batch written
 * into a full stream added its own `drain`, `close` and `error` listeners, and a downstream that
 * sent thousands of log messages in one call made Node warn `MaxListenersExceededWarning: … 11
 * error listeners added to [Socket]` while the lines piled up in the stream's buffer.
 *
 * `write` is how a batch reaches the stream: the stream's own method unless given. The stdio
 * server's stdout passes stdout-guard.ts's `writeStdout`, which still reaches stdout once every
 * other writer of `process.stdout.write` has been sent to stderr.
 */
/** The stream closed after a batch was handed to it and before it drained: each line may or may not have reached the other side. */
export class WriteInterrupted extends Error {
  constructor() {
    super("the connection closed while the message was being written: the other side may have received it");
    this.name = "WriteInterrupted";
  }
}

/**
 * A batch that never reached the other side: the stream was gone before it was written, or its
 * write failed at once with nothing of it taken. Sending it again cannot run anything twice.
 * Its message starts with the MCP SDK's "Not connected", with what was found after it.
 */
export class NotSent extends Error {
  constructor(detail?: string, options?: ErrorOptions) {
    super(detail ? `Not connected (${detail})` : "Not connected", options);
    this.name = "NotSent";
  }
}

/** How far `refusedUnsent` looks: the MCP connection and the stdio opener each ask their own question of it. */
export interface UnsentQuestion {
  /**
   * How many errors of the `cause` chain to look at, the error itself first (1 unless given): a
   * NotSent the SDK wrapped (the handshake's write) lies below what it threw.
   */
  depth?: number;
  /**
   * Also the MCP SDK's own refusal of a request on a closed transport: SdkError with code
   * SdkErrorCode.NotConnected ("NOT_CONNECTED"), message "Not connected". Looked for by code and
   * message, not by class, so this module of streams needs no SDK (test/batched-writes.test.ts
   * pins the SDK's code and message).
   */
  sdkNotConnected?: boolean;
}

/**
 * A request refused before any of it was sent because the connection was already closed: NotSent
 * (and, when asked, the SDK's "Not connected"). Sending such a request again cannot run it twice.
 */
export function refusedUnsent(error: unknown, { depth = 1, sdkNotConnected = false }: UnsentQuestion = {}): boolean {
  for (let seen: unknown = error, looked = 0; seen instanceof Error && looked < depth; seen = seen.cause, looked++) {
    if (seen instanceof NotSent) return true;
    if (sdkNotConnected && ((seen as { code?: unknown }).code === "NOT_CONNECTED" || seen.message === "Not connected")) return true;
  }
  return false;
}

export class BatchedWriter {
  readonly #out: Writable;
  readonly #write: (text: string) => boolean;
  #text = "";
  #batch: Promise<void> | undefined;
  #settle: ((error?: Error) => void) | undefined;
  /** A written batch waits for the stream's `drain`: the next batch is written when it is over. */
  #waiting = false;

  constructor(out: Writable, write: (text: string) => boolean = (text) => out.write(text)) {
    this.#out = out;
    this.#write = write;
  }

  write(line: string): Promise<void> {
    this.#text += line;
    if (!this.#batch) {
      this.#batch = new Promise<void>((resolve, reject) => {
        this.#settle = (error) => (error ? reject(error) : resolve());
      });
      if (!this.#waiting) process.nextTick(this.#flush);
    }
    return this.#batch;
  }

  readonly #flush = (): void => {
    const text = this.#text;
    const settle = this.#settle!;
    this.#text = "";
    this.#batch = undefined;
    this.#settle = undefined;
    const out = this.#out;
    if (out.destroyed || out.writableEnded) {
      settle(new NotSent());
      return;
    }
    let done = false;
    const finish = (error?: Error): void => {
      if (done) return;
      done = true;
      out.off("error", finish);
      out.off("drain", onDrain);
      out.off("close", onClose);
      settle(error);
      // Lines held while this batch waited leave now (on a stream gone meanwhile: "Not connected", as they never left).
      if (this.#waiting) {
        this.#waiting = false;
        if (this.#batch) process.nextTick(this.#flush);
      }
    };
    const onDrain = (): void => finish();
    const onClose = (): void => finish(new WriteInterrupted());
    out.once("error", finish);
    try {
      const taken = this.#write(text);
      // Errored during this very write (Node records a failed dispatch there and then, and emits
      // 'error' a tick later): the first write syscall failed, which takes no byte, and nothing was
      // queued before the batch (a stream still busy queues it unwritten instead). So none of it left.
      const refused = out.errored;
      if (refused) finish(new NotSent(`write failed before any of it was taken: ${refused.message}`, { cause: refused }));
      else if (taken) finish();
      else if (!done) {
        this.#waiting = true;
        out.once("drain", onDrain);
        out.once("close", onClose);
      }
    } catch (error) {
      finish(error as Error);
    }
  };
}
