import { RuntimeError } from "../errors.js";

/**
 * Who is calling, and what they may do: an identity of the team gateway (a named bearer token or
 * a JWT subject). The runtime holds every path to it — typed facade tools, compact tools, skills,
 * search, help and the text layer's plugin commands all reach the runtime with the session, and
 * the session carries its identity. A session without one (stdio, a single-token server) may do
 * everything, as before.
 */

export interface Identity {
  name: string;
  /** Plugin prefixes this identity may use, or "*" for all. */
  plugins: "*" | readonly string[];
  /** Whether it may run calls that change data (a tool that is not read-only, a skill that writes). */
  write: boolean;
  /** Requests per minute on the HTTP endpoint; undefined for no limit. */
  ratePerMinute?: number;
}

/**
 * The key of what an identity sees (its name and plugins), for the caches kept per identity: the
 * facade's tool lists and the modern entry's session scopes. No identity: "".
 */
export function identityViewKey(identity: Identity | undefined): string {
  return identity ? `${identity.name}\n${identity.plugins === "*" ? "*" : identity.plugins.join(",")}` : "";
}

/**
 * The key of the whole identity: name, plugins, write right and rate ("" for none). Not by name
 * alone: what one identity opened (a session, a workspace, a confirmation) must not serve another
 * that shares its name but may do less (the config refuses duplicate names, and a JWT reissued
 * with fewer plugins or without the write scope is a different caller too).
 */
export function identityKey(identity: Identity | undefined): string {
  return identity ? `${identityViewKey(identity)}\n${identity.write ? "write" : "read"}\n${identity.ratePerMinute ?? ""}` : "";
}

/** Whether two callers are the same identity (identityKey): no identity on both sides, or the same whole identity. */
export function sameIdentity(a: Identity | undefined, b: Identity | undefined): boolean {
  return a === b || identityKey(a) === identityKey(b);
}

/**
 * Whether the caller may use every plugin (no identity: stdio, the host's own CLI). Only such a
 * caller sees what names host paths or the whole fleet: the config file, plugin folders, the
 * names in `plugins.disable`.
 */
export function seesWholeFleet(identity: Identity | undefined): boolean {
  return !identity || identity.plugins === "*";
}

export function mayUsePlugin(identity: Identity | undefined, prefix: string): boolean {
  return !identity || identity.plugins === "*" || identity.plugins.includes(prefix);
}

/** One sentence of what the identity may do, for FORBIDDEN answers. */
export function allowance(identity: Identity): { plugins: "*" | string[]; write: boolean; text: string } {
  const plugins = identity.plugins === "*" ? "*" : [...identity.plugins];
  const which = plugins === "*" ? "every plugin" : plugins.length ? `the plugins ${plugins.map((p) => `'${p}'`).join(", ")}` : "no plugin";
  return { plugins, write: identity.write, text: `identity '${identity.name}' may use ${which}${identity.write ? ", reading and writing" : ", read-only (no calls that change data)"}` };
}

export function forbiddenWrite(identity: Identity, prefix: string, what: string): RuntimeError {
  const allowed = allowance(identity);
  return new RuntimeError("FORBIDDEN", `${what} changes data and ${allowed.text}`, { identity: identity.name, plugin: prefix, allowed: { plugins: allowed.plugins, write: allowed.write } });
}

/**
 * The prefixes among `prefixes` the identity may use: the only plugins a name is resolved against.
 * A plugin it may not use answers exactly as a name that never was a plugin (UNKNOWN_PLUGIN, with
 * did-you-mean and the plugin list drawn from these alone), on every path, so no answer confirms
 * that a hidden plugin exists (README "Identities").
 */
export function usablePrefixes(identity: Identity | undefined, prefixes: Iterable<string>): string[] {
  return [...prefixes].filter((prefix) => mayUsePlugin(identity, prefix));
}
