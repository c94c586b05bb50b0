/**
 * A lone surrogate (one half of a UTF-16 pair, such as `"\ud800"`, which JSON can carry) is no
 * character: UTF-8 has no bytes for it. Sent in a URL path encodeURIComponent throws ("URI
 * malformed", which read as the service's failure), and in a query, a text body or a program's
 * argv it silently became U+FFFD. An argument that holds one is refused before anything is sent,
 * naming it, as a NUL byte in an argv is. (JSON escapes it, `\ud800`, so a JSON body or an MCP
 * argument carries it as it is and needs no check.)
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What is wrong with `text` as a value sent as UTF-8, worded to follow "argument 'x' …", or
 * undefined when it holds no lone surrogate.
 */
export function loneSurrogateProblem(text: string): string | undefined {
  const found = LONE_SURROGATE.exec(text);
  if (!found) return undefined;
  const code = found[0].charCodeAt(0).toString(16);
  return (
    `holds a lone surrogate (\\u${code} at position ${found.index}): half of a UTF-16 pair, which is no character and cannot be sent as UTF-8, so nothing was sent. ` +
    "Send the whole character (both halves of the pair), or leave it out"
  );
}
