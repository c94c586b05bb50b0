import { RuntimeError } from "./errors.js";

/**
 * What an adapter returned, made into the `result` of a facade answer: an MCP CallToolResult is
 * unwrapped (structured content first, then JSON text, then plain text), a downstream `isError`
 * becomes UPSTREAM_ERROR, and anything larger than the cap is cut with an honest marker.
 */

interface CallToolResultLike {
  content: Array<{ type: string; text?: string; [k: string]: unknown }>;
  structuredContent?: unknown;
  isError?: boolean;
}

function isCallToolResult(value: unknown): value is CallToolResultLike {
  return !!value && typeof value === "object" && Array.isArray((value as CallToolResultLike).content);
}

function textOf(result: CallToolResultLike): string | undefined {
  if (!result.content.every((c) => c.type === "text" && typeof c.text === "string")) return undefined;
  return result.content.map((c) => c.text).join("\n");
}

export function unwrapResult(raw: unknown): unknown {
  if (!isCallToolResult(raw)) return raw === undefined ? null : raw;
  const text = textOf(raw);
  if (raw.isError) {
    const message = (text ?? "the tool reported an error").trim().slice(0, 2000) || "the tool reported an error";
    throw new RuntimeError("UPSTREAM_ERROR", `the tool answered with an error: ${message}`, { content: raw.content });
  }
  if (raw.structuredContent !== undefined) return raw.structuredContent;
  if (text === undefined) return raw.content;
  const trimmed = text.trim();
  if ((trimmed.startsWith("{") || trimmed.startsWith("[")) && raw.content.length === 1) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return text;
}

export interface Truncation {
  originalChars: number;
  shownChars: number;
  note: string;
}

/** Cut a result whose JSON exceeds `maxChars`; the cut part is returned as a string prefix. */
export function capResult(result: unknown, maxChars: number): { result: unknown; truncated?: Truncation } {
  const json = JSON.stringify(result) ?? "null";
  if (json.length <= maxChars) return { result };
  return {
    result: json.slice(0, maxChars),
    truncated: {
      originalChars: json.length,
      shownChars: maxChars,
      note: "The result was cut to fit; `result` holds the first characters of its JSON. Ask for less (filters, pagination) to see it whole.",
    },
  };
}

/**
 * Run `work` with a deadline and the caller's cancellation. A timeout answers UPSTREAM_TIMEOUT;
 * the adapter gets the abort signal so it can stop its own I/O.
 */
export async function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, outer: AbortSignal | undefined, what: string): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new RuntimeError("UPSTREAM_TIMEOUT", `${what} did not answer within ${timeoutMs} ms`, { timeoutMs });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    onOuterAbort = () => {
      const error = new RuntimeError("UPSTREAM_ERROR", `${what} was cancelled by the client`);
      controller.abort(error);
      reject(error);
    };
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener("abort", onOuterAbort, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), stopped]);
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) outer?.removeEventListener("abort", onOuterAbort);
  }
}
