import { loneSurrogateProblem } from "../shared/lone-surrogate.js";
import { RestError, UrlGuardError } from "./errors.js";

/**
 * The base URL can never be escaped. Three lines of defence:
 *  1. path templates (from the manifest) and raw paths (from the text layer) are checked as text:
 *     no absolute URL, no `//host`, no backslash, no `.`/`..` segment, no encoded dot, slash or
 *     backslash (`%2e`, `%2f`, `%5c`, also double-encoded as `%252e`), no control characters, and no
 *     dot segment carrying servlet path parameters (`..;`, `..;jsessionid=x`, `.;`): Tomcat, Jetty
 *     and the proxies in front of them cut `;params` off each segment before they normalise, so
 *     `/ok/..;/admin` reaches `/admin` there;
 *  2. path parameter values are encoded with encodeURIComponent, and a value that would still be a
 *     dot segment ("." or "..", which WHATWG URL parsing removes even when encoded) is refused, as
 *     is one with a dot segment between its slashes or backslashes (`../../admin`, also written
 *     with percent-escapes): it is sent as one segment (`..%2F..%2Fadmin`), but a front that
 *     decodes `%2F` before it resolves dot segments (nginx, Apache with AllowEncodedSlashes, naive
 *     routers) reads `/admin`;
 *  3. the resolved URL must keep the base's origin and sit under its path prefix. Link headers
 *     (pagination) and login URLs go through the same check.
 * A value with slashes but no dot segment (`a/b`) is sent as one encoded segment (`a%2Fb`).
 */

export interface BaseUrl {
  /** "https://api.example.com" */
  origin: string;
  /** The base path without its trailing slash: "" or "/v1". */
  prefix: string;
  href: string;
}

/**
 * A base URL the plugin's manifest got wrong. `hint` says what to change in plugin.json: the fix
 * is the plugin author's (or the host's, when a `${VAR}` in baseUrl supplies the bad part), never
 * the agent's, so the caller passes it on instead of the code's generic NOT_CONFIGURED hint.
 */
export class BaseUrlError extends Error {
  override readonly name = "BaseUrlError";
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * Where a base URL was written, when it is not adapter.baseUrl of a plugin's plugin.json: a host
 * variable that holds the whole URL (the rest-api text module's AGENT_API_BASE_URL). The hints
 * then name that variable, which is what the host must change, not a manifest nobody wrote.
 */
export interface BaseUrlSource {
  /** The variable's name: AGENT_API_BASE_URL. */
  variable: string;
  /** How this caller takes a credential instead of one in the URL: "set AGENT_API_TOKEN (sent as a bearer token)". */
  credentials: string;
}

/** The words of each refusal, for the manifest (no source) or for a variable. */
function wording(from: BaseUrlSource | undefined) {
  if (from) {
    const fix = (what: string): string => `Set ${from.variable} in the server's environment ${what}, then restart the server.`;
    return {
      name: from.variable,
      notAbsolute: fix("to an absolute http(s) URL (e.g. https://api.example.com/v1)"),
      notHttp: fix("to an http(s) URL"),
      credentials: { message: `${from.variable} must not contain a user or password`, hint: fix(`to scheme, host and path only, without the user and password; to authenticate, ${from.credentials}`) },
      query: { remedy: `to authenticate, ${from.credentials}`, hint: fix(`to scheme, host and path only, without the query; to authenticate, ${from.credentials}; other query values go in each request's path (e.g. '/items?page=2')`) },
    };
  }
  return {
    name: "baseUrl",
    notAbsolute: "Fix adapter.baseUrl in the plugin's plugin.json (or the host variable it names) to an absolute http(s) URL, then restart the server.",
    notHttp: "Fix adapter.baseUrl in the plugin's plugin.json to an http(s) URL, then restart the server.",
    credentials: {
      message: "baseUrl must not contain credentials; use the auth block",
      hint: "Fix the plugin's plugin.json: take the user and password out of adapter.baseUrl and use adapter.auth (\"login\" or \"header\") with ${VAR}s instead, then restart the server.",
    },
    query: {
      remedy: 'put query values in a tool\'s query or in auth (type "query")',
      hint:
        "Fix the plugin's plugin.json, not the environment: keep adapter.baseUrl to scheme, host and path, move a key or token from its query to adapter.auth " +
        '({"type": "query", "name": "<parameter>", "value": "${YOUR_KEY_VARIABLE}"}, or "bearer"/"header" if the API takes one), ' +
        "and give other fixed query values as a tool's query argument with a value in its defaults; then restart the server.",
    },
  };
}

/**
 * Parse and check a base URL: http(s), no credentials, query or fragment. Throws BaseUrlError,
 * whose hint names what to change: adapter.baseUrl in plugin.json, or `from`'s variable.
 */
export function parseBaseUrl(raw: string, from?: BaseUrlSource): BaseUrl {
  const words = wording(from);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BaseUrlError(`${words.name} '${raw}' is not an absolute URL (expected e.g. https://api.example.com/v1)`, words.notAbsolute);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new BaseUrlError(`${words.name} '${raw}' must use http or https, not ${url.protocol}`, words.notHttp);
  if (url.username || url.password) throw new BaseUrlError(words.credentials.message, words.credentials.hint);
  // Not quoted whole: a query on a base URL is most often an API key (?access_key=…).
  if (url.search || url.hash) throw new BaseUrlError(`${words.name} '${url.origin}${url.pathname}' must not have a query or fragment; ${words.query.remedy}`, words.query.hint);
  const prefix = url.pathname.replace(/\/+$/, "");
  return { origin: url.origin, prefix, href: url.origin + prefix };
}

const ENCODED_DANGER = /%(?:25)*(?:2e|2f|5c|00)/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\s]/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * True when a segment is `.` or `..` to some server: as written, or once servlet-style path
 * parameters (`;…`) are cut off, or once `%3b` is read as `;`.
 */
function isDotSegment(segment: string): boolean {
  const bare = segment.replace(/%3b/gi, ";").split(";")[0];
  return bare === "." || bare === "..";
}

/** Text checks shared by templates and raw paths (the part before any `?`). */
function checkPathText(pathText: string, what: string): void {
  const shown = JSON.stringify(pathText);
  if (SCHEME.test(pathText)) throw new UrlGuardError(`${what} ${shown} is an absolute URL; only paths under the base URL are allowed`);
  if (pathText.startsWith("//")) throw new UrlGuardError(`${what} ${shown} starts with '//', which would name another host`);
  if (!pathText.startsWith("/")) throw new UrlGuardError(`${what} ${shown} must start with '/'`);
  if (pathText.includes("\\")) throw new UrlGuardError(`${what} ${shown} contains a backslash`);
  if (CONTROL.test(pathText)) throw new UrlGuardError(`${what} ${shown} contains whitespace or control characters`);
  if (ENCODED_DANGER.test(pathText)) throw new UrlGuardError(`${what} ${shown} contains an encoded dot, slash, backslash or NUL (%2e, %2f, %5c, %00), which could traverse out of the base URL`);
  for (const segment of pathText.split("/")) {
    if (segment === "." || segment === "..") throw new UrlGuardError(`${what} ${shown} contains a '${segment}' segment`);
    if (isDotSegment(segment)) {
      throw new UrlGuardError(`${what} ${shown} contains the segment '${segment}', which servlet-style servers read as '${segment.startsWith("..") ? ".." : "."}' (path parameters after ';' are cut off); remove it`);
    }
  }
}

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** Check a tool's path template; returns its `{param}` names in order. */
export function checkPathTemplate(template: string, what = "path template"): string[] {
  if (template.includes("?") || template.includes("#")) {
    throw new UrlGuardError(`${what} ${JSON.stringify(template)} must not contain '?' or '#'; declare query parameters in 'query'`);
  }
  checkPathText(template, what);
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw new UrlGuardError(`${what} ${JSON.stringify(template)} has an invalid placeholder '{${name}}'`);
    names.push(name);
  }
  if (template.replace(PLACEHOLDER, "").match(/[{}]/)) throw new UrlGuardError(`${what} ${JSON.stringify(template)} has an unmatched brace`);
  return names;
}

/** Check a raw path (with optional `?query`) as received by the text-layer requester. */
export function checkRawPath(raw: string, what = "path"): { path: string; search: string } {
  const q = raw.indexOf("?");
  const pathText = q === -1 ? raw : raw.slice(0, q);
  const search = q === -1 ? "" : raw.slice(q);
  if (raw.includes("#")) throw new UrlGuardError(`${what} ${JSON.stringify(raw)} must not contain a fragment ('#')`);
  checkPathText(pathText, what);
  if (CONTROL.test(search)) throw new UrlGuardError(`${what} ${JSON.stringify(raw)} contains whitespace or control characters`);
  return { path: pathText, search };
}

/** One path parameter value, encoded as a single segment. */
export function encodePathValue(name: string, value: unknown): string {
  if (value === undefined || value === null) throw new UrlGuardError(`missing path parameter '${name}'`);
  if (typeof value === "object") throw new UrlGuardError(`path parameter '${name}' must be a string or number, not ${Array.isArray(value) ? "an array" : "an object"}`);
  const text = String(value);
  if (text === "") throw new UrlGuardError(`path parameter '${name}' must not be empty`);
  // Before encodeURIComponent, which throws a bare "URI malformed" on it.
  const unsendable = loneSurrogateProblem(text);
  if (unsendable) throw new RestError("ARG_VALIDATION_FAILED", `path parameter '${name}' ${unsendable}`, undefined, { details: { argument: name } });
  if (isDotSegment(text)) throw new UrlGuardError(`path parameter '${name}' must not be ${JSON.stringify(text)}: a dot segment would leave the tool's path`);
  const dotted = percentDecoded(text).split(/[/\\]/).find(isDotSegment);
  if (dotted !== undefined) {
    throw new UrlGuardError(
      `path parameter '${name}' must not contain a '${dotted}' segment between slashes (${JSON.stringify(text)}): a server that decodes %2F before resolving dot segments would leave the tool's path; pass the identifier itself, without '/${dotted}/'`,
    );
  }
  return encodeURIComponent(text);
}

/** `text` with its percent-escapes decoded, again while any are left (`%252e` → `%2e` → `.`), a few rounds at most. */
function percentDecoded(text: string): string {
  let current = text;
  for (let round = 0; round < 4; round++) {
    const next = current.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Replace each `{param}` with its encoded value. The template must have passed checkPathTemplate. */
export function substitutePath(template: string, args: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => encodePathValue(name, args[name]));
}

/** Refuse a URL that left the base's origin or path prefix. */
export function assertWithinBase(url: URL, base: BaseUrl, what = "URL"): void {
  const shown = `${url.origin}${url.pathname}`;
  // WHATWG parsing removed plain dot segments already; `..;` ones survive it and are traversal
  // to servlet-style servers (a Link header or login URL could carry one).
  const dotted = url.pathname.split("/").find(isDotSegment);
  if (dotted !== undefined) throw new UrlGuardError(`${what} '${shown}' contains the segment '${dotted}', which servlet-style servers read as a dot segment`);
  if (url.origin !== base.origin) throw new UrlGuardError(`${what} '${shown}' is outside the base URL '${base.href}' (different origin)`);
  if (base.prefix && url.pathname !== base.prefix && !url.pathname.startsWith(`${base.prefix}/`)) {
    throw new UrlGuardError(`${what} '${shown}' is outside the base URL '${base.href}' (path does not start with '${base.prefix}/')`);
  }
}

/** base + checked path (+ search) → URL, verified to stay under the base. */
export function resolveUnderBase(base: BaseUrl, path: string, search = ""): URL {
  const url = new URL(base.origin + base.prefix + path + search);
  assertWithinBase(url, base);
  return url;
}

/** A URL from the server (Link header): resolved against the current URL, then guarded. */
export function resolveServerUrl(reference: string, current: URL, base: BaseUrl, what: string): URL {
  let url: URL;
  try {
    url = new URL(reference, current);
  } catch {
    throw new UrlGuardError(`${what} '${reference}' is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UrlGuardError(`${what} '${reference}' must use http or https`);
  if (url.username || url.password) throw new UrlGuardError(`${what} must not carry credentials`);
  assertWithinBase(url, base, what);
  return url;
}
