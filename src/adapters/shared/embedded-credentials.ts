import { decodeSafely, literalText, referenceOpeningAt, urlCredentials } from "./env-vars.js";
import { looksGenerated } from "./secret-name.js";

/**
 * Credentials written inside a longer literal text of a config entry, where no name says they are
 * one: an argument or env value holding a connection URL (`postgresql://user:PASSWORD@host/db`,
 * `--db-url=postgres://u:PASSWORD@h/db`), a connection string (`Server=x;Password=…;`), or a
 * webhook address whose path is the credential (Slack, Discord), or a path segment that is a token
 * (Telegram's `/bot<id>:<token>/`, a long random run). The redactor registers them as it
 * reads the entry, so a server that repeats its command line or environment in an error shows none.
 */

/** Every `scheme://…` run of a text, up to whitespace or a quote. */
const URL_RUN = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** Webhook addresses whose path is the whole credential: anyone holding it may post. */
const WEBHOOK_PATH = /(?:hooks\.slack\.com\/(?:services|workflows|triggers)|discord(?:app)?\.com\/api\/webhooks)\/([^\s?#"'<>]+)/gi;

/** A Telegram bot address's path segment, `bot<id>:<token>`: what follows `bot` is the token its owner holds. */
const BOT_TOKEN_SEGMENT = /^bot(\d+:[\w-]+)$/;

/**
 * The path segments of a URL that are a credential by their look: a bot token, a JWT, a long
 * random run (no folder or resource is named so). Ordinary segments (`repos`, `v1`, an id) stay readable.
 */
function pathTokens(url: string): string[] {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const segment of path.split("/")) {
    const decoded = decodeSafely(segment);
    const bot = BOT_TOKEN_SEGMENT.exec(decoded);
    if (bot) found.push(bot[1]!);
    else if (looksGenerated(decoded)) found.push(segment, decoded);
  }
  return found;
}

/** A `key=value` part of a connection string (ADO.NET, ODBC, JDBC properties, Azure storage): at the start or after ';'. */
const CONNECTION_PART = /(?:^|;)\s*([A-Za-z][A-Za-z ]*?)\s*=\s*("[^"]*"|'[^']*'|\{[^}]*\}|[^;]*)/g;

/** Keys of a connection string whose value is a credential. */
const CONNECTION_SECRET_KEY = /^(password|passwd|pwd|accountkey|sharedaccesskey|sharedaccesssignature)$/i;

/** The credentials inside `text` (a value as it is used: resolved, or literal), as the redactor should mask them; none when it holds none. */
export function embeddedCredentials(text: string): string[] {
  const found = new Set<string>();
  for (const [url] of text.matchAll(URL_RUN)) for (const part of [...urlCredentials(url), ...pathTokens(url)]) found.add(part);
  for (const match of text.matchAll(WEBHOOK_PATH)) found.add(match[1]!);
  for (const match of text.matchAll(CONNECTION_PART)) {
    if (!CONNECTION_SECRET_KEY.test(match[1]!.replace(/\s+/g, ""))) continue;
    const value = match[2]!.trim().replace(/^(["'{])([\s\S]*)["'}]$/, "$2");
    if (value) found.add(value);
  }
  return [...found];
}

/**
 * The credentials inside a setting as written in a file (a config entry's `env`, `args`,
 * `headers`, `url`), in the text it stands for once resolved: its escapes read, so the password of
 * `postgres://u:pa$${ss@db/app` is `pa${ss`, what a server that repeats it shows. A part holding a
 * `${VAR}` reference (as written or URL-encoded) is no credential of its own: the variable's value
 * is registered where it is resolved.
 */
export function writtenCredentials(written: string): string[] {
  if (referenceOpeningAt(written) < 0) return embeddedCredentials(literalText(written));
  return embeddedCredentials(written)
    .filter((part) => referenceOpeningAt(part) < 0 && referenceOpeningAt(decodeSafely(part)) < 0)
    .map(literalText);
}
