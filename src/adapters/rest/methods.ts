/**
 * The HTTP methods a rest tool may send: one list for the block's schema (schema.ts) and the
 * parser that normalises a tool's `method` to upper case (spec.ts).
 */
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** A pattern matching any of them in any case ("get", "Post"): JSON Schema patterns have no flags. */
export const HTTP_METHOD_PATTERN = `^(${HTTP_METHODS.map((m) => [...m].map((c) => `[${c}${c.toLowerCase()}]`).join("")).join("|")})$`;
