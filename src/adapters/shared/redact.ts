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
      for (const secret of ordered) out = out.split(secret).join(MARKER);
      for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
      return out;
    },
    redactValue<T>(value: T): T {
      if (typeof value === "string") return redactor.redact(value) as T;
      if (Array.isArray(value)) return value.map((v: unknown) => redactor.redactValue(v)) as T;
      if (value && typeof value === "object") {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redactor.redactValue(v);
        return out as T;
      }
      return value;
    },
  };
  for (const secret of initial) redactor.add(secret);
  return redactor;
}
