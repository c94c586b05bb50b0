/**
 * The ways a secret can be written in a text that echoes it back. A service that repeats the
 * request it got (an error page with `req.url`, a debug echo of a header, an HTML page) writes a
 * credential as the runtime sent it or as its own framework escapes it, not as the variable holds
 * it: the redactor (redact.ts) masks each of these forms, so a key with a `!`, a space or a `&`
 * cannot pass by being encoded.
 *
 * Covered, for the text as it is and with its accents composed or decomposed (NFC, NFD): the text
 * as it is and trimmed (what an HTTP header carries: fetch trims the value);
 * percent-encoded as a URI component (`encodeURIComponent`), as a form or query value
 * (`URLSearchParams`, which the runtime's query auth and query arguments use: space as `+`,
 * `!~()'*` escaped), as a URL path and as a URL query writes it (a `${VAR}` in a base URL), each
 * with upper- and lower-case hex (`%2F`, `%2f`); JSON-escaped (`\"`, `\\`, and with non-ASCII
 * as `\uXXXX`, as Python writes JSON); and each of those HTML-escaped (`&amp;`, `&lt;`, `&gt;`,
 * and a quote as `&quot;`/`&#39;`, `&quot;`/`&#x27;` or `&#34;`/`&#39;`).
 */

import { Buffer } from "node:buffer";

/** `text` with every character `keep` refuses written as its UTF-8 bytes, `%XX` each (upper-case hex, as URL encoders write). */
function percentEncoded(text: string, keep: (char: string) => boolean, spaceAsPlus = false): string {
  let out = "";
  for (const char of text) {
    if (keep(char)) out += char;
    else if (spaceAsPlus && char === " ") out += "+";
    else for (const byte of Buffer.from(char, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** What encodeURIComponent leaves as it is (it throws on a lone surrogate; this writes its replacement character's bytes). */
const keptInComponent = (char: string): boolean => /^[A-Za-z0-9\-_.!~*'()]$/.test(char);
/** What the WHATWG URL parser leaves as it is in a path (`"#<>?\`{}`, space, controls and non-ASCII are escaped). */
const keptInPath = (char: string): boolean => char > " " && char <= "~" && !`"#<>?\`{}`.includes(char);
/** What it leaves as it is in the query of an http(s) URL (`"#<>'`, space, controls and non-ASCII are escaped). */
const keptInQuery = (char: string): boolean => char > " " && char <= "~" && !`"#<>'`.includes(char);

/** The percent-encoded forms (upper-case hex): as a URI component, a form value, a URL path, a URL query. */
function percentForms(secret: string): string[] {
  const form = new URLSearchParams([["", secret]]).toString().slice(1); // "=value"
  return [percentEncoded(secret, keptInComponent), form, percentEncoded(secret, keptInPath), percentEncoded(secret, keptInQuery)];
}

/** A JSON string's inside, and the same with every non-ASCII character as `\uXXXX` (Python's `ensure_ascii`). */
function jsonForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  // Each UTF-16 unit escaped: an emoji is its surrogate pair, `\ud83d\ude00`, as Python writes it.
  const unit = (char: string, i: number): string => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return [json, json.replace(/[^\p{ASCII}]/gu, (char) => [...Array(char.length).keys()].map((i) => unit(char, i)).join(""))];
}

/** How HTML escapers write a quote: `[double, single]` of escape-html/lodash, of Python's html.escape, of Go's. */
const QUOTE_STYLES: readonly (readonly [string, string])[] = [
  ["&quot;", "&#39;"],
  ["&quot;", "&#x27;"],
  ["&#34;", "&#39;"],
];

function htmlForms(text: string): string[] {
  if (!/[&<>"']/.test(text)) return [];
  const base = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return QUOTE_STYLES.map(([double, single]) => base.replace(/"/g, double).replace(/'/g, single));
}

/** Percent-escapes in lower-case hex (`%2f`), as some servers and libraries write them. */
function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

/** Every form of `secret` a text may hold (see the module's comment), the secret itself first, each once. */
export function secretForms(secret: string): string[] {
  const written: string[] = [];
  // Its accents composed and decomposed too (NFC, NFD: a macOS file name, a normalizing service).
  for (const text of new Set([secret, secret.normalize("NFC"), secret.normalize("NFD")])) {
    written.push(text, text.trim(), ...jsonForms(text));
    for (const encoded of percentForms(text)) written.push(encoded, lowerHex(encoded));
  }
  const forms = new Set<string>();
  for (const text of written) {
    forms.add(text);
    for (const escaped of htmlForms(text)) forms.add(escaped);
  }
  return [...forms];
}
