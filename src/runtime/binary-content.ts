/**
 * The binary items of an MCP result (image, audio, a resource with a `blob`), kept out of the
 * answer's JSON. Base64 in the JSON costs the model's context a token per few bytes of noise, and
 * the result cap cut it partway, pushing the items after it past the cut. Each such item becomes
 * a short placeholder (what it is and how big); images and audio, up to a cap, go on to the client
 * as real MCP content items after the answer's text (facade/present.ts), where clients show them.
 */

/** An image or audio item to pass to the client as it came. */
export interface MediaItem {
  type: "image" | "audio";
  data: string;
  mimeType: string;
}

/**
 * Decoded bytes of images and audio one answer passes to the client, in all: a few screenshots,
 * below the per-image limits of the model APIs clients send them to (5 MB). Items past it are
 * placeholders only, which say so.
 */
export const MAX_MEDIA_BYTES = 4 * 1024 * 1024;

/** What a placeholder says of a binary the JSON does not carry. */
export const LEFT_OUT = "binary left out of the text";
const OVER_CAP = `${LEFT_OUT}; not passed on either: the images and audio of one answer are capped at ${MAX_MEDIA_BYTES / 1024 / 1024} MiB in all`;

type ContentItem = { type: string; [k: string]: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** A base64 text's decoded size, without decoding it. */
function decodedBytes(base64: string): number {
  return Buffer.byteLength(base64, "base64");
}

function isMedia(item: ContentItem): item is ContentItem & MediaItem {
  return (item.type === "image" || item.type === "audio") && typeof item.data === "string";
}

function blobOf(item: ContentItem): Record<string, unknown> | undefined {
  return item.type === "resource" && isRecord(item.resource) && typeof item.resource.blob === "string" ? item.resource : undefined;
}

/** Whether any item of `content` carries a binary (the usual result has none: nothing is copied then). */
export function hasBinary(content: readonly ContentItem[]): boolean {
  return content.some((item) => isMedia(item) || blobOf(item) !== undefined);
}

/**
 * `content` with every binary replaced by its placeholder, and the images and audio to pass on
 * (`maxMediaBytes` in all, in order; 0 passes none on, for an error's details).
 */
export function withoutBinary(content: readonly ContentItem[], maxMediaBytes = MAX_MEDIA_BYTES): { content: unknown[]; media: MediaItem[] } {
  const media: MediaItem[] = [];
  let budget = maxMediaBytes;
  const shown = content.map((item): unknown => {
    if (isMedia(item)) {
      const bytes = decodedBytes(item.data);
      const passed = bytes <= budget;
      if (passed) {
        budget -= bytes;
        media.push({ type: item.type, data: item.data, mimeType: item.mimeType });
      }
      return { type: item.type, mimeType: item.mimeType, bytes, binary: passed || maxMediaBytes === 0 ? LEFT_OUT : OVER_CAP };
    }
    const blob = blobOf(item);
    if (!blob) return item;
    const { blob: data, ...rest } = blob;
    return { type: "resource", ...rest, bytes: decodedBytes(data as string), binary: LEFT_OUT };
  });
  return { content: shown, media };
}
