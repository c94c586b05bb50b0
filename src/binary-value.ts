/**
 * Raw bytes in a value plugin code returned or threw (a Buffer, a typed array, an ArrayBuffer, a
 * DataView). JSON.stringify writes them as their bytes (`{"type":"Buffer","data":[112,…]}`, or
 * one field per byte), which no model reads as text and which carries a credential past the
 * redactor as numbers. They are answered as a descriptor instead, shaped as an adapter's binary
 * body is (adapters/shared/binary-body.ts): what there was and how big, never the bytes.
 * It imports nothing, so every layer (the redactor, errors) may use it.
 */

export interface BytesDescriptor {
  binary: true;
  contentType: null;
  bytes: number;
  hint: string;
}

/** Whether `value` is raw bytes: an ArrayBuffer view (Buffer, typed array, DataView) or an ArrayBuffer. */
export function isBytes(value: object): value is ArrayBufferView | ArrayBufferLike {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && value instanceof SharedArrayBuffer);
}

/** The descriptor answered in place of raw bytes. */
export function bytesDescriptor(value: ArrayBufferView | ArrayBufferLike): BytesDescriptor {
  const kind = Buffer.isBuffer(value) ? "Buffer" : (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name || "byte array";
  return {
    binary: true,
    contentType: null,
    bytes: value.byteLength,
    hint: `The plugin's code answered raw bytes (a ${kind}), which are not passed on. If they are text, the plugin should decode them (or send base64) before answering.`,
  };
}
