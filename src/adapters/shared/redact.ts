/**
 * Keeps credentials out of results, errors and logs. Every secret value an adapter resolves is
 * registered; `redact` replaces each occurrence (and its URL-encoded form) with a marker. Common
 * credential shapes (Bearer tokens, `token=` query values) are masked even when unregistered.
 */

const MARKER = "[redacted]";
const MIN_SECRET_LENGTH = 4;

export interface Redactor {
  add(secret: string | undefined): void;
  redact(text: string): string;
  /** Deep-redact a JSON-like value. */
  redactValue<T>(value: T): T;
}

/**
 * Whether a text may hold one of the SHAPES: one scan, so the usual string (no credential-looking
 * word in it) is not run through each replacement.
 */
const MAYBE_SHAPE = /bearer|authorization|[?&](?:access_token|token|api_key|apikey|key|password|secret)=/i;

const SHAPES: [RegExp, string][] = [
  [/(authorization\s*[:=]\s*)(bearer|basic|token)\s+[^\s"',;]+/gi, `$1$2 ${MARKER}`],
  [/\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${MARKER}`],
  [/([?&](?:access_token|token|api_key|apikey|key|password|secret)=)[^&\s"']+/gi, `$1${MARKER}`],
];

export function createRedactor(initial: Iterable<string | undefined> = []): Redactor {
  const secrets = new Set<string>();
  // Longest first, so a secret that contains another is masked whole. Sorted once after secrets
  // were added, not per string: redactValue calls redact for every string of every result.
  let ordered: string[] | undefined = [];
  const redactor: Redactor = {
    add(secret) {
      if (!secret || secret.length < MIN_SECRET_LENGTH) return;
      secrets.add(secret);
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret) secrets.add(encoded);
      ordered = undefined;
    },
    redact(text) {
      let out = text;
      ordered ??= [...secrets].sort((a, b) => b.length - a.length);
      for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(MARKER);
      if (MAYBE_SHAPE.test(out)) for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
      return out;
    },
    // Copy on write: a value with nothing to mask (nearly every result) comes back as it was,
    // without a copy of each of its objects and arrays.
    redactValue<T>(value: T): T {
      if (typeof value === "string") return redactor.redact(value) as T;
      if (Array.isArray(value)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const masked = redactor.redactValue(item);
          if (masked !== item) (out ??= value.slice())[i] = masked;
        }
        return (out ?? value) as T;
      }
      if (value && typeof value === "object") {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          // Not a plain object (a class instance, a Date): made plain, its own enumerable fields, as always.
          const plain: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(value as Record<string, unknown>)) plain[k] = redactor.redactValue(v);
          return plain as T;
        }
        let out: Record<string, unknown> | undefined;
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          const item = (value as Record<string, unknown>)[key];
          const masked = redactor.redactValue(item);
          if (masked !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = masked;
        }
        return (out ?? value) as T;
      }
      return value;
    },
  };
  for (const secret of initial) redactor.add(secret);
  return redactor;
}
