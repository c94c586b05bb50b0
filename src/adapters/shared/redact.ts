/**
 * Keeps credentials out of results, errors and logs. Every secret value an adapter resolves is
 * registered; `redact` replaces each occurrence with a marker, in every form a text may write it
 * (percent-encoded as the runtime sent it, JSON- or HTML-escaped: secret-forms.ts), and a long
 * enough run that begins one (a backend that echoes part of a key). Common credential shapes
 * (Bearer tokens, `token=` query values) are masked even when unregistered.
 */

import { bytesDescriptor, isBytes } from "../../binary-value.js";
import { base64Field, maskBase64 } from "./base64-secrets.js";
import { secretForms } from "./secret-forms.js";

/** What a masked secret reads as. */
export const REDACTED_MARKER = "[redacted]";
const MARKER = REDACTED_MARKER;
const MIN_SECRET_LENGTH = 4;
/**
 * A backend that echoes part of a credential ("Bad credentials for ghp_SECRETTOK…") leaks it: a
 * run of at least this many characters that begins a known secret is masked too (as far as it
 * matches). 12, not fewer: the public kind prefixes of keys (`ghp_`, `sk-proj-`, `tk_live_`) are
 * shorter, so a text that only names the kind is left alone, and a word that merely begins a
 * short password ("password" of "password1234") is not a run this long.
 */
const MIN_PREFIX_LENGTH = 12;

/**
 * Whether a secret's beginnings are masked: one longer than MIN_PREFIX_LENGTH and shaped like a
 * token or password. Not a URL or a text with spaces (a secret-named variable holding an address,
 * "Bearer …"): their first 12 characters ("https://api.") begin ordinary text everywhere.
 */
function maskPrefixesOf(secret: string): boolean {
  return secret.length > MIN_PREFIX_LENGTH && !/\s|:\/\//.test(secret);
}

export interface Redactor {
  add(secret: string | undefined): void;
  redact(text: string): string;
  /**
   * `redact` for a text a limit cut short: a secret's first characters at its end (the rest was
   * cut off) are masked too, from MIN_SECRET_LENGTH of them on.
   */
  redactCut(text: string): string;
  /** Deep-redact a value, as JSON.stringify sees it (toJSON called, class instances as their own fields). */
  redactValue<T>(value: T): T;
}

/** Whether `error` is the engine's stack overflow (a walk of a value nested thousands of levels deep). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * `value` masked by `redactor.redactValue`, or, when it is nested deeper than that walk's stack
 * allows (JSON.parse takes 20,000 nested arrays, the walk does not), `text` (the JSON text it was
 * parsed from, when the caller has it) masked as text: what the pipeline's shape step does with
 * such an MCP text (runtime/result.ts). Without the text, an error that says why, never a bare
 * "Maximum call stack size exceeded" (JSON.stringify of such a value overflows too).
 */
export function redactValueOrText(redactor: Pick<Redactor, "redact" | "redactValue">, value: unknown, text: string | undefined): unknown {
  try {
    return redactor.redactValue(value);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    if (text !== undefined) return redactor.redact(text);
    throw new Error("the result is nested too deeply (thousands of levels) to be passed on; ask for a flatter result (another tool, fewer levels, or as text)");
  }
}

/**
 * Whether a text may hold one of the SHAPES: one scan, so the usual string (no credential-looking
 * word in it) is not run through each replacement.
 */
const MAYBE_SHAPE = /bearer|authorization|[?&](?:access_token|token|api_key|apikey|key|password|secret)=/i;

/**
 * Whether a key may hold one of the SHAPES, by a scan cheaper than a regular expression on the
 * short words keys usually are: every SHAPE is at least 6 characters and holds whitespace or "=".
 * A non-ASCII character (perhaps a Unicode space) leaves the answer to MAYBE_SHAPE.
 */
function mayHoldShape(key: string): boolean {
  if (key.length < 6) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 61 /* = */ || c === 32 || (c >= 9 && c <= 13) || c > 127) return true;
  }
  return false;
}

const SHAPES: [RegExp, string][] = [
  [/(authorization\s*[:=]\s*)(bearer|basic|token)\s+[^\s"',;]+/gi, `$1$2 ${MARKER}`],
  [/\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${MARKER}`],
  [/([?&](?:access_token|token|api_key|apikey|key|password|secret)=)[^&\s"']+/gi, `$1${MARKER}`],
];

/**
 * A copy of `fields` with each key masked. Two keys can mask to the same text (two secrets, or a
 * secret next to a key that already reads `[redacted]`): a masked key that finds its name taken
 * gets a suffix (`[redacted] (2)`, `[redacted] (3)`…), so no field is dropped. Keys that needed no
 * masking keep their names; the order is kept.
 */
function withMaskedKeys(fields: Record<string, unknown>, redactor: Redactor): Record<string, unknown> {
  const keys = Object.keys(fields);
  const masked = keys.map((key) => redactor.redact(key));
  const taken = new Set(keys.filter((key, i) => masked[i] === key));
  const out: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    let name = masked[i] as string;
    if (name !== key) {
      for (let n = 2; taken.has(name); n++) name = `${masked[i]} (${n})`;
      taken.add(name);
    }
    // defineProperty, not `out[name] =`: a "__proto__" key (JSON.parse makes it an own field)
    // stays a field instead of setting the copy's prototype.
    Object.defineProperty(out, name, { value: fields[key], enumerable: true, writable: true, configurable: true });
  });
  return out;
}

/** A text to mask (a secret, or one of its forms), with its first MIN_PREFIX_LENGTH characters when its beginnings are masked too (maskPrefixesOf). */
interface Entry {
  secret: string;
  start?: string;
}

/** The longest text every one of `texts` begins with. */
function commonStart(texts: readonly string[]): string {
  let start = texts[0] ?? "";
  for (const text of texts) while (!text.startsWith(start)) start = start.slice(0, -1);
  return start;
}

export function createRedactor(initial: Iterable<string | undefined> = []): Redactor {
  // Every form of every secret registered (secretForms): each is masked as a secret of its own.
  const secrets = new Set<string>();
  // Each registered secret → its forms, so that a text is scanned once per secret, not per form.
  const formsOf = new Map<string, readonly string[]>();
  // Longest first, so a secret that contains another is masked whole. Sorted once after secrets
  // were added, not per string: redactValue calls redact for every string of every result.
  let ordered: string[] | undefined = [];
  // Each form, longest first (Entry). Built once after secrets were added.
  let entries: Entry[] | undefined;
  const entryList = (): Entry[] => {
    ordered ??= [...secrets].sort((a, b) => b.length - a.length);
    return (entries ??= ordered.map((secret) => (maskPrefixesOf(secret) ? { secret, start: secret.slice(0, MIN_PREFIX_LENGTH) } : { secret })));
  };
  // Each secret's entries with a test a text must pass to hold any of them: one scan rules out all
  // its forms, as it did when a secret had one or two. Usually what they all begin with (its
  // characters before the first one a form escapes); when that is too short to rule much out (a
  // secret that begins `!x…`), one regular expression of them all.
  let groups: { holdsAny: (text: string) => boolean; entries: Entry[] }[] | undefined;
  const groupList = (): { holdsAny: (text: string) => boolean; entries: Entry[] }[] => {
    if (groups) return groups;
    const bySecret = new Map(entryList().map((entry) => [entry.secret, entry]));
    return (groups = [...formsOf.values()].map((forms) => {
      const own = forms.map((form) => bySecret.get(form)).filter((entry): entry is Entry => entry !== undefined);
      const beginnings = own.map((entry) => entry.start ?? entry.secret);
      const probe = commonStart(beginnings);
      if (own.length === 1 || probe.length >= MIN_SECRET_LENGTH) return { holdsAny: (text: string) => text.includes(probe), entries: own };
      const any = new RegExp(beginnings.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));
      return { holdsAny: (text: string) => any.test(text), entries: own };
    }));
  };
  /** `text` with every run of MIN_PREFIX_LENGTH or more characters that begins `secret` masked, as far as it matches. */
  const maskRuns = (text: string, secret: string, start: string): string => {
    let out = text;
    for (let at = out.indexOf(start); at >= 0; at = out.indexOf(start, at + MARKER.length)) {
      let length = MIN_PREFIX_LENGTH;
      while (length < secret.length && out[at + length] === secret[length]) length++;
      out = `${out.slice(0, at)}${MARKER}${out.slice(at + length)}`;
    }
    return out;
  };
  // The shortest secret's length: a shorter key cannot hold one (most keys are short words).
  let shortest = Infinity;
  /** Whether `key` holds a secret or a credential shape: the cheap test of every object key. */
  const keyHoldsSecret = (key: string): boolean => {
    if (key.length >= shortest) {
      ordered ??= [...secrets].sort((a, b) => b.length - a.length);
      for (const secret of ordered) if (key.includes(secret)) return true;
    }
    if (key.length >= MIN_PREFIX_LENGTH) for (const { start } of entryList()) if (start !== undefined && key.includes(start)) return true;
    return mayHoldShape(key) && MAYBE_SHAPE.test(key) && redactor.redact(key) !== key;
  };
  const redactor: Redactor = {
    add(secret) {
      if (!secret || secret.length < MIN_SECRET_LENGTH || formsOf.has(secret)) return;
      // The forms a text may write it in (secret-forms.ts); a trimmed one too short to be a secret is left out.
      const forms = secretForms(secret).filter((form) => form.length >= MIN_SECRET_LENGTH);
      formsOf.set(secret, forms);
      for (const form of forms) {
        secrets.add(form);
        shortest = Math.min(shortest, form.length);
      }
      ordered = undefined;
      entries = undefined;
      groups = undefined;
    },
    redact(text) {
      let out = text;
      // One scan per secret for a text that holds none (the usual case): a text without a secret's
      // first characters holds neither the secret nor a run of it.
      let found: Entry[] | undefined;
      for (const { holdsAny, entries: own } of groupList()) {
        if (!holdsAny(out)) continue;
        if (own.length === 1) (found ??= []).push(own[0] as Entry);
        else for (const entry of own) if (out.includes(entry.start ?? entry.secret)) (found ??= []).push(entry);
      }
      if (found) {
        // Longest first, as entryList is: the groups are in the order the secrets were added.
        if (found.length > 1) found.sort((a, b) => b.secret.length - a.secret.length);
        for (const { secret } of found) if (out.includes(secret)) out = out.split(secret).join(MARKER);
        // Runs after every whole secret: a longer secret's run (the URL-encoded form of a key with a
        // `/`, `…%2F…`) would otherwise cut the start off a whole one and leave its rest readable.
        for (const { secret, start } of found) if (start !== undefined && out.includes(start)) out = maskRuns(out, secret, start);
      }
      if (MAYBE_SHAPE.test(out)) for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
      return out;
    },
    redactCut(text) {
      const out = redactor.redact(text);
      ordered ??= [...secrets].sort((a, b) => b.length - a.length);
      // The longest beginning of any secret the text ends with.
      let cut = 0;
      for (const secret of ordered) {
        for (let k = Math.min(secret.length - 1, out.length); k > cut && k >= MIN_SECRET_LENGTH; k--) {
          if (out.endsWith(secret.slice(0, k))) {
            cut = k;
            break;
          }
        }
      }
      return cut > 0 ? `${out.slice(0, out.length - cut)}${MARKER}` : out;
    },
    redactValue<T>(value: T): T {
      return walk(value, "", false) as T;
    },
  };
  /**
   * `value` as JSON.stringify sees it, masked: what a `toJSON` returns (a Date's ISO text, a URL's
   * href, a Buffer's bytes) in place of the object, a class instance or a Map as its own enumerable
   * fields, a boxed primitive as the primitive. Not a plain copy of such an object: a Date has no
   * fields (it became `{}`), and a `toJSON`'s text, never walked, would reach the answer unmasked.
   * `key` is what JSON.stringify hands a `toJSON` (the field's name, an array's index, "" at the
   * top); `returnedByToJSON`: the value came from one, and JSON.stringify calls none on it again.
   *
   * Copy on write: a value with nothing to mask (nearly every result) comes back as it was,
   * without a copy of each of its objects and arrays.
   */
  const walk = (value: unknown, key: string | number, returnedByToJSON: boolean): unknown => {
    if (typeof value === "string") return redactor.redact(value);
    if (!value || typeof value !== "object") return value;
    // Bytes (a Buffer's toJSON gives them as numbers) are no text to mask: described, never sent.
    if (isBytes(value)) return bytesDescriptor(value);
    // JSON.stringify calls a toJSON wherever it is: own or inherited (a class's, a prototype
    // object's), enumerable or not. One lookup per object, as it does: listing the fields would
    // miss a non-enumerable or inherited one, which the final JSON.stringify of the answer would
    // then call after masking.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function" && !returnedByToJSON) return walk((toJSON as (key: string) => unknown).call(value, String(key)), key, true);
    // From here on a toJSON is one a toJSON returned: JSON.stringify leaves it uncalled (and the
    // function out). The copy leaves it out too, so the walk's output is plain data: the final
    // JSON.stringify of the answer would call it, and what it returns would go out unmasked.
    if (Array.isArray(value)) {
      const items: unknown[] = typeof toJSON === "function" ? Array.from(value) : value;
      let out: unknown[] | undefined = items === value ? undefined : items;
      for (let i = 0; i < items.length; i++) {
        const item: unknown = items[i];
        const masked = walk(item, i, false);
        if (masked !== item) (out ??= items.slice())[i] = masked;
      }
      return out ?? value;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    let record = value as Record<string, unknown>;
    if (proto !== Object.prototype && proto !== null) {
      if (value instanceof String) return redactor.redact(String(value));
      if (value instanceof Number || value instanceof Boolean) return value.valueOf();
      // A class instance, a Map, a Date a toJSON returned: its own enumerable fields, as JSON has
      // them (an inherited toJSON stays behind with the prototype).
      record = { ...value } as Record<string, unknown>;
    }
    if (typeof toJSON === "function" && Object.hasOwn(record, "toJSON")) {
      const { toJSON: _dropped, ...rest } = record;
      record = rest;
    }
    let out: Record<string, unknown> | undefined;
    // A key is text like any other: a secret (or a credential shape) can be one, e.g. a JSON
    // text result `{"<token>": …}` parsed before this step. Most keys are short and hold
    // nothing: one check each, and the object is rebuilt only when one changes.
    let keyChanged = false;
    // MCP binary content (a resource's blob, an image's data): its bytes are masked too (base64-secrets.ts).
    const binary = base64Field(record);
    for (const field in record) {
      if (!Object.hasOwn(record, field)) continue;
      const item = record[field];
      const masked = field === binary ? maskBase64(redactor.redact(item as string), redactor.redact) : walk(item, field, false);
      if (masked !== item) (out ??= { ...record })[field] = masked;
      if (!keyChanged && keyHoldsSecret(field)) keyChanged = true;
    }
    const fields = out ?? record;
    return keyChanged ? withMaskedKeys(fields, redactor) : fields;
  };
  for (const secret of initial) redactor.add(secret);
  return redactor;
}
