import { decodeSafely, secretQueryName, tokenLike, urlCredentials } from "./adapters/shared/env-vars.js";

/**
 * A URL as an error may quote it: a user's setting that is wrong is worth showing (the host, the
 * path, the typo), its credentials never are. Used by every message that quotes a URL setting
 * (a Redis URL, a config entry's `url`).
 */

/**
 * The URL with its credentials replaced by `***`: everything between `//` and the last `@`, so a
 * password that itself holds `@` or `/` shows no part of itself.
 */
function maskUrlCredentials(url: string): string {
  return url.replace(/\/\/.*@/s, "//***@");
}

/**
 * `url` to quote in an error: its userinfo masked, and the query values urlCredentials finds. A
 * URL that does not parse (or not as written, `http:/…`) gives up none of its parts, so there it is masked by its text:
 * whatever stands before an '@' after the scheme (one slash, two, backslashes or none: a typo
 * like `http:/user:pass@host` is still a password), what follows a ':' in the authority that is
 * not a port number (`http://user:pass` has no '@'), every query or fragment parameter whose
 * name says it is a credential (`?password=`, `?api_key=`, `?key=`, `#token=`), and every
 * token-like run (a key pasted into the host, `http://[::1:ghp_…`).
 */
export function maskedUrlText(url: string): string {
  let shown = maskParameters(maskUrlCredentials(url));
  const parts = urlCredentials(url);
  for (const part of parts) shown = shown.split(part).join("***");
  // Parsed as written only with its "scheme://": `http:/user:pass@host` parses too (one slash
  // is forgiven for http), with urlCredentials none the wiser.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && canParse(url)) return shown;
  shown = shown.replace(/^((?:[a-z][a-z0-9+.-]*:)?[/\\]*).*@/is, "$1***@");
  shown = shown.replace(/^((?:[a-z][a-z0-9+.-]*:)?[/\\]*(?:\[[^\]/?#]*\]|[^:/\\?#@[]*)):([^/\\?#]+)/is, (whole, head: string, port: string) => (/^\d+$/.test(port) ? whole : `${head}:***`));
  return shown.replace(/[\w.~+=-]{20,}/g, (run) => (tokenLike(run) ? "***" : run));
}

/** `text` with the value of each `name=value` after '?', '&', ';' or '#' masked when the name says it holds a credential. */
function maskParameters(text: string): string {
  return text.replace(/([?&;#]([^=&;#?]*)=)([^&;#]*)/g, (whole, lead: string, name: string, value: string) => (value && secretQueryName(decodeSafely(name)) ? `${lead}***` : whole));
}

function canParse(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with the URL's authority, when the URL parser only says "Invalid URL". Quote it masked. */
export function urlAuthorityProblem(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/(?:.*@)?([^/?#]*)/is.exec(url)?.[1] ?? "";
  if (authority.startsWith("[") && !authority.includes("]")) return `its IPv6 address opens '[' without a closing ']'`;
  const port = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(authority)?.[1];
  // Not quoted: what follows the ':' may be a password written without its '@host' (`http://user:pass`).
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return /^\d+$/.test(port) ? `its port ${port} is above 65535` : "the part after ':' in its host is not a port number (a whole number from 1 to 65535; a password goes before '@host')";
  if (port !== undefined && Number(port) > 65535) return `its port ${port} is above 65535`;
  const host = port === undefined ? authority : authority.slice(0, authority.length - port.length - 1);
  if (!host) return "it names no host";
  if (/\s/.test(host)) return `its host '${host}' holds a space`;
  return `its host '${host}' is not a valid host name (a password holding '/', '?' or '#' must be percent-encoded)`;
}
