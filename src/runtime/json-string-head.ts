/**
 * The start of a text cut to what it costs once written as a JSON string. A result cut to fit is
 * sent as a string inside the JSON answer, where every `"` and `\` takes two characters and a
 * control character up to six: the JSON of a result cut to its first 400 characters took about
 * 480 in the answer, so the cap was not what the model read. Cut here, the string as written
 * (quotes included) fits the cap.
 */

/** Control characters with a two-character escape: \b \t \n \f \r (any other is \u00XX, six). */
function shortEscape(code: number): boolean {
  return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/**
 * The longest start of `text` whose JSON string (JSON.stringify of it, quotes included) is at
 * most `maxChars` characters; never cuts a surrogate pair in two. One pass, no allocation per
 * character: inside the sandbox the cap is millions of characters.
 */
export function headWithinJsonString(text: string, maxChars: number): string {
  const budget = maxChars - 2; // the string's own quotes
  let used = 0;
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    let cost = 1;
    let units = 1;
    if (code === 0x22 || code === 0x5c) cost = 2;
    else if (code < 0x20) cost = shortEscape(code) ? 2 : 6;
    else if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(at + 1);
      // A pair is written as it is; a lone surrogate as \uXXXX (well-formed JSON.stringify).
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cost = 2;
        units = 2;
      } else cost = 6;
    }
    if (used + cost > budget) break;
    used += cost;
    at += units;
  }
  return text.slice(0, at);
}
