import type { TeamIdentityConfig } from "../config/team.js";
import { closestNames, foldedMatch } from "../runtime/similarity.js";

/**
 * Identities whose `plugins` see less than they were meant to, said once each at start. An entry
 * is a prefix matched exactly (access.ts), so a typo, a plugin's name or another case ("Memory"),
 * or a pattern ("mem*": `*` is a wildcard only alone) matches nothing, and `[]` sees no plugin:
 * the identity then silently sees nothing. Matched against every loaded plugin's prefix,
 * configured or not (a plugin may be set up after the start).
 */

/** How many prefixes a notice lists when none is near an entry. */
const LISTED_PREFIXES = 15;

/** What an entry that matches no prefix was likely meant to be, as a short clause. */
function nearest(entry: string, prefixes: readonly string[]): string {
  const folded = foldedMatch(entry, prefixes);
  if (folded !== undefined) {
    const how = folded.toLowerCase() === entry.trim().toLowerCase() ? "only in case" : "only in case or '-'/'_'";
    return `did you mean '${folded}'? (it differs ${how}, and prefixes match exactly)`;
  }
  if (entry.includes("*")) {
    const start = entry.slice(0, entry.indexOf("*"));
    const starting = prefixes.filter((p) => p.startsWith(start));
    const which = starting.length ? `; the prefixes starting with '${start}' are ${starting.map((p) => `'${p}'`).join(", ")}` : "";
    return `'*' is a wildcard only on its own ("*" for every plugin), not inside a name${which}`;
  }
  const close = closestNames(entry, prefixes, 0.5, 2);
  if (close.length) return `did you mean ${close.map((c) => `'${c}'`).join(" or ")}?`;
  if (!prefixes.length) return "no plugins were loaded at all";
  const sorted = [...prefixes].sort();
  const listed = sorted.slice(0, LISTED_PREFIXES).map((p) => `'${p}'`).join(", ") + (sorted.length > LISTED_PREFIXES ? ` and ${sorted.length - LISTED_PREFIXES} more` : "");
  return `no prefix is near it; the plugins' prefixes are ${listed}`;
}

/**
 * What is wrong with each identity's `plugins`: `unmatched`, entries that match no loaded plugin's
 * prefix (a mistake: `validate` fails on it); `empty`, `[]` (it sees no plugin, which may be meant).
 */
export function identityPluginFindings(identities: readonly TeamIdentityConfig[] | undefined, prefixes: readonly string[]): { kind: "unmatched" | "empty"; line: string }[] {
  return (identities ?? []).flatMap((identity, i): { kind: "unmatched" | "empty"; line: string }[] => {
    const label = `team.identities[${i}] ('${identity.name}')`;
    const plugins = identity.plugins;
    if (plugins === undefined || plugins.includes("*")) return [];
    if (plugins.length === 0) return [{ kind: "empty", line: `${label} has "plugins": [], so it sees no plugin; list the prefixes it may use, or ["*"] for every plugin` }];
    const unmatched = plugins.filter((entry) => !prefixes.includes(entry));
    if (unmatched.length === 0) return [];
    const seesNothing = unmatched.length === plugins.length ? ", so it sees no plugin" : "";
    const parts = unmatched.map((entry) => `'${entry}' (${nearest(entry, prefixes)})`);
    return [{ kind: "unmatched", line: `${label} names plugins that match no loaded plugin's prefix${seesNothing}: ${parts.join("; ")}; correct them in its "plugins"` }];
  });
}

/** One warning per identity whose `plugins` has entries matching no loaded plugin's prefix, or is empty (said at an HTTP start). */
export function identityPluginNotices(identities: readonly TeamIdentityConfig[] | undefined, prefixes: readonly string[]): string[] {
  return identityPluginFindings(identities, prefixes).map((finding) => finding.line);
}
