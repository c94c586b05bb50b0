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
}
