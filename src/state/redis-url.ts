/**
 * The Redis URL a team gateway is given (AGENT_TOOLS_REDIS_URL or the config's `team.redis`),
 * checked before ioredis sees it: ioredis answers a bad one with a bare `TypeError: Invalid URL`
 * and a stack, naming neither the setting nor what is wrong. The URL may hold a password, so it is
 * only ever shown masked.
 */

/** A start refused for a state setting: the user's to fix, said in one line (run-bin.ts). */
export class StateSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateSettingError";
  }
}

/**
 * The URL with its credentials replaced by `***`: everything between `//` and the last `@`, so a
 * password that itself holds `@` or `/` shows no part of itself.
 */
export function maskUrlCredentials(url: string): string {
  return url.replace(/\/\/.*@/s, "//***@");
}

/** What is wrong with the URL's authority, when the URL parser only says "Invalid URL". */
function authorityProblem(url: string): string {
  const authority = /^[a-z]+:\/\/(?:.*@)?([^/?#]*)/is.exec(url)?.[1] ?? "";
  const port = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(authority)?.[1];
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return `its port '${port}' is not a whole number from 1 to 65535`;
  if (port !== undefined && Number(port) > 65535) return `its port ${port} is above 65535`;
  const host = port === undefined ? authority : authority.slice(0, authority.length - port.length - 1);
  if (!host) return "it names no host";
  return `its host '${host}' is not a valid host name (a password holding '/', '?' or '#' must be percent-encoded)`;
}

/** Throws StateSettingError, naming the setting and what is wrong, unless `url` is a usable Redis URL. */
export function checkRedisUrl(url: string, setting: string): void {
  const shown = maskUrlCredentials(url);
  const form = "redis://[[user]:password@]host[:port][/db] (rediss:// for TLS)";
  if (!/^rediss?:\/\//i.test(url)) throw new StateSettingError(`${setting} must start with redis:// or rediss:// (got '${shown}'); the form is ${form}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StateSettingError(`${setting} is not a usable Redis URL: ${authorityProblem(url)} (got '${shown}'); the form is ${form}`);
  }
  if (!parsed.hostname) throw new StateSettingError(`${setting} is not a usable Redis URL: it names no host (got '${shown}'); the form is ${form}`);
}
