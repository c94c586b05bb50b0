import { inMiB } from "../byte-size.js";

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

/**
 * Images and audio one answer passes to the client, in all: each is an MCP content item and a
 * mention in the answer's `attached` sentence, so thousands of tiny images made an answer of
 * thousands of items and a sentence longer than the capped result beside it.
 */
export const MAX_MEDIA_ITEMS = 20;

/** What a placeholder says of a binary the JSON does not carry. */
export const LEFT_OUT = "binary left out of the text";
const OVER_CAP = `${LEFT_OUT}; not passed on either: the images and audio of one answer are capped at ${inMiB(MAX_MEDIA_BYTES)} in all`;
const OVER_COUNT = `${LEFT_OUT}; not passed on either: one answer passes on at most ${MAX_MEDIA_ITEMS} images and audio; ask the tool for fewer at a time to get the rest`;

/**
 * A media type as a client needs it: its `type/subtype`, lowercased, without parameters
 * (`image/png; key=…` is `image/png`). Parameters mean nothing to a client showing an image, and a
 * downstream could put anything in them; a text that is not a media type at all is kept (cut), for
 * the redactor to mask like any other text.
 */
export function essentialMediaType(mimeType: string): string {
  const plain = /^\s*([\w!#$&^.+-]{1,64}\/[\w!#$&^.+-]{1,64})\s*(?:;|$)/.exec(mimeType);
  return plain?.[1] ? plain[1].toLowerCase() : mimeType.slice(0, 100);
}

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
      const counted = media.length < MAX_MEDIA_ITEMS;
      const passed = counted && bytes <= budget;
      if (passed) {
        budget -= bytes;
        media.push({ type: item.type, data: item.data, mimeType: essentialMediaType(item.mimeType) });
      }
      return { type: item.type, mimeType: item.mimeType, bytes, binary: passed || maxMediaBytes === 0 ? LEFT_OUT : counted ? OVER_CAP : OVER_COUNT };
    }
    const blob = blobOf(item);
    if (!blob) return item;
    // The item's own fields (annotations, _meta) and the resource's (uri, mimeType, …) but the blob.
    const { resource: _resource, ...outer } = item;
    const { blob: data, ...rest } = blob;
    return { ...outer, type: "resource", ...rest, bytes: decodedBytes(data as string), binary: LEFT_OUT };
  });
  return { content: shown, media };
}
