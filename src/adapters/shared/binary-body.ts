/**
 * What an adapter answers in place of output that is not text: a REST body of an image or an
 * archive, a program's stdout of bytes that are not UTF-8. As text it would be escaped garbage or
 * corrupted (each undecodable byte a U+FFFD), passed on as if it were the program's output; the
 * descriptor says what there was and how big, and keeps it out of the answer instead.
 */
export interface BinaryBody {
  binary: true;
  /** The content type it was labelled with; null when none (a program's stdout has none). */
  contentType: string | null;
  /** Its size in bytes (at least that many with `atLeast`, when counting stopped at a cap). */
  bytes: number;
  atLeast?: true;
  /** How to get it as text, when the adapter knows a way (a program's own base64 or hex option). */
  hint?: string;
}

export function isBinaryBody(data: unknown): data is BinaryBody {
  return !!data && typeof data === "object" && (data as { binary?: unknown }).binary === true && typeof (data as { bytes?: unknown }).bytes === "number";
}

/**
 * "a binary body of 300 bytes (content type application/octet-stream)": what an error message says
 * instead of quoting it. `what` names the stream; `untyped` is said when it has no content type.
 */
export function describeBinary(body: BinaryBody, what = "body", untyped = "no content type"): string {
  const size = `${body.atLeast ? "at least " : ""}${body.bytes} bytes`;
  return `a binary ${what} of ${size} (${body.contentType ? `content type ${body.contentType}` : untyped})`;
}
