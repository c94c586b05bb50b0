import { inMiB, MIB } from "../../byte-size.js";

/**
 * Base64 is text the redactor cannot read: a file read as media (server-filesystem's
 * read_media_file answers any file so, a notes file as an `application/octet-stream` blob, the
 * same file renamed `.png` as an image) carried a credential past the masking a text read of it
 * gets. The binary fields of MCP content (a resource's `blob`, an image's or audio's `data`) are
 * decoded, masked and encoded again. The bytes are read as Latin-1, one character per byte, so
 * every file decodes and encodes back unchanged but for what is masked (a secret is ASCII as
 * registered; a secret with other characters is not found in its UTF-8 bytes this way).
 */

/**
 * Decoded bytes checked per field. Above the images and audio one answer passes on
 * (binary-content.ts MAX_MEDIA_BYTES, 4 MiB), so media within that keep working; a larger binary
 * is left out rather than passed on unread.
 */
export const MAX_CHECKED_BINARY_BYTES = 8 * MIB;

/** What a binary too large to check reads as. */
export const UNCHECKED_BINARY = `[binary left out: larger than the ${inMiB(MAX_CHECKED_BINARY_BYTES)} checked for credentials; read a smaller file, or the file as text]`;

/** The field of `record` holding base64 as MCP shapes binary content, or undefined: a resource's `blob`, an image's or audio's `data`. */
export function base64Field(record: Readonly<Record<string, unknown>>): "blob" | "data" | undefined {
  if (typeof record.blob === "string" && typeof record.uri === "string") return "blob";
  if ((record.type === "image" || record.type === "audio") && typeof record.data === "string") return "data";
  return undefined;
}

/** `base64` with every credential `mask` finds in its bytes masked: the same text when none is, re-encoded when one is. */
export function maskBase64(base64: string, mask: (text: string) => string): string {
  if (Buffer.byteLength(base64, "base64") > MAX_CHECKED_BINARY_BYTES) return UNCHECKED_BINARY;
  const text = Buffer.from(base64, "base64").toString("latin1");
  const masked = mask(text);
  return masked === text ? base64 : Buffer.from(masked, "latin1").toString("base64");
}
