/**
 * The Redis URL a team gateway is given (AGENT_TOOLS_REDIS_URL or the config's `team.redis`),
 * checked before ioredis sees it: ioredis answers a bad one with a bare `TypeError: Invalid URL`
 * and a stack, naming neither the setting nor what is wrong. The URL may hold a password, so it is
 * only ever shown masked.
 */

import { maskedUrlText, urlAuthorityProblem } from "../url-text.js";

/** A start refused for a state setting: the user's to fix, said in one line (run-bin.ts). */
export class StateSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateSettingError";
  }
}

/** Throws StateSettingError, naming the setting and what is wrong, unless `url` is a usable Redis URL. */
export function checkRedisUrl(url: string, setting: string): void {
  const shown = maskedUrlText(url);
  const form = "redis://[[user]:password@]host[:port][/db] (rediss:// for TLS)";
  if (!/^rediss?:\/\//i.test(url)) throw new StateSettingError(`${setting} must start with redis:// or rediss:// (got '${shown}'); the form is ${form}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StateSettingError(`${setting} is not a usable Redis URL: ${urlAuthorityProblem(url)} (got '${shown}'); the form is ${form}`);
  }
  if (!parsed.hostname) throw new StateSettingError(`${setting} is not a usable Redis URL: it names no host (got '${shown}'); the form is ${form}`);
  // ioredis reads the path as the database and sends `SELECT NaN` for `/abc`: a reply error and a
  // stack. Not quoted on its own: only the masked URL is shown (a misplaced password may be in it).
  const database = databasePart(parsed);
  if (database !== undefined && !/^\d+$/.test(database)) {
    throw new StateSettingError(`${setting} is not a usable Redis URL: its database (after the host's '/') is not a whole number, 0 or more (got '${shown}'); the form is ${form}`);
  }
}

/** The database part of a parsed Redis URL as written (the path after '/', else a `db` query value), or undefined when it names none. */
function databasePart(parsed: URL): string | undefined {
  // As ioredis reads it (utils parseURL): the path as written, else the query's `db`.
  return parsed.pathname.slice(1) || (parsed.searchParams.get("db") ?? undefined);
}

/** The database a Redis URL (checked by checkRedisUrl) selects: 0 when it names none. */
export function redisDatabase(url: string): number {
  const database = databasePart(new URL(url));
  return database === undefined ? 0 : Number(database);
}
