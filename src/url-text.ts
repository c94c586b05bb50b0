import { tokenLike, urlCredentials } from "./adapters/shared/env-vars.js";

/**
 * A URL as an error may quote it: a user's setting that is wrong is worth showing (the host, the
 * path, the typo), its credentials never are. Used by every message that quotes a URL setting
 * (a Redis URL, a config entry's `url`).
 */

/**
 * The URL with its credentials replaced by `***`: everything between `//` and the last `@`, so a
 * password that itself holds `@` or `/` shows no part of itself.
 */
export function maskUrlCredentials(url: string): string {
  return url.replace(/\/\/.*@/s, "//***@");
}

/**
 * `url` to quote in an error: its userinfo masked, and the query values urlCredentials finds. A
 * URL that does not parse gives up none of its parts, so there every token-like run (a key pasted
 * into the host, `http://[::1:ghp_…`) is masked whole instead.
 */
export function maskedUrlText(url: string): string {
  let shown = maskUrlCredentials(url);
  const parts = urlCredentials(url);
  for (const part of parts) shown = shown.split(part).join("***");
  if (parts.length || canParse(url)) return shown;
  return shown.replace(/[\w.~+=-]{20,}/g, (run) => (tokenLike(run) ? "***" : run));
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
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return `its port '${port}' is not a whole number from 1 to 65535`;
  if (port !== undefined && Number(port) > 65535) return `its port ${port} is above 65535`;
  const host = port === undefined ? authority : authority.slice(0, authority.length - port.length - 1);
  if (!host) return "it names no host";
  if (/\s/.test(host)) return `its host '${host}' holds a space`;
  return `its host '${host}' is not a valid host name (a password holding '/', '?' or '#' must be percent-encoded)`;
}
