/**
 * Byte counts as messages say them, one set of words for every message (a sandbox's memory
 * budget, a file over its limit, an answer over the response cap, a relayed log's byte bound).
 */

export const KIB = 1024;
export const MIB = 1024 * KIB;

/** In MiB to a tenth: "8 MiB", "1.5 MiB", "0.2 MiB". */
export function inMiB(bytes: number): string {
  return `${Math.round((bytes / MIB) * 10) / 10} MiB`;
}

/** In MiB to a tenth from 1 MiB on, in bytes below ("512 bytes"): a small size is not "0 MiB". */
export function sizeWords(bytes: number): string {
  return bytes >= MIB ? inMiB(bytes) : `${bytes} bytes`;
}

/** A bound's size, exactly: in whole MiB or KiB when it is one ("1 MiB", "100 KiB"), else in bytes. */
export function exactSizeWords(bytes: number): string {
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes % KIB === 0) return `${bytes / KIB} KiB`;
  return `${bytes} bytes`;
}
