import { ManifestError, type PluginManifest } from "./manifest.js";
import type { Skill } from "./skills.js";

/**
 * Names a manifest refers to that must exist elsewhere: the skill `discoverContext` runs, and the
 * tools `readonlyTools` and `confirmTools` list. A missing skill and a tool in both lists are
 * problems (the plugin loads, and the problem is listed like a skill that failed): the first fails
 * every discover with `contextError`, the second says two opposite things of one tool. A listed tool
 * the catalog lacks is only worth a notice (a typo, or a tool the server has dropped): it is known
 * only once the catalog is, which for an MCP server means after starting it.
 */

/** What is wrong with the references a plugin's manifest makes to its own skills and to itself. */
export function manifestReferenceProblems(manifest: PluginManifest, skills: readonly Skill[]): string[] {
  const problems: string[] = [];
  const wanted = manifest.discoverContext?.skill;
  if (wanted !== undefined && !skills.some((skill) => skill.name === wanted)) {
    const names = skills.map((skill) => skill.name).join(", ") || "none loaded";
    problems.push(new ManifestError(manifest.file, "discoverContext.skill", `names '${wanted}', which is not a skill of this plugin (its skills: ${names}); name one of them, or remove discoverContext`).message);
  }
  const readonly = new Set(manifest.readonlyTools);
  const both = [...new Set(manifest.confirmTools ?? [])].filter((name) => readonly.has(name));
  if (both.length) {
    const list = both.map((name) => `'${name}'`).join(", ");
    // A config entry's field is named with its place in the file (mcpServers.<key>.confirmTools): one file holds many entries.
    const field = manifest.entryPath ? [...manifest.entryPath, "confirmTools"].join(".") : "confirmTools";
    problems.push(new ManifestError(manifest.file, field, `and readonlyTools both list ${list}: a tool either runs without confirm or always needs it; remove ${both.length === 1 ? "it" : "them"} from one of the two`).message);
  }
  return problems;
}

/**
 * The line saying which names in `readonlyTools`/`confirmTools` (and a config entry's
 * `includeTools`/`excludeTools`) the plugin's catalog lacks, or undefined when there are none.
 */
export function unknownListedTools(manifest: PluginManifest, toolNames: readonly string[]): string | undefined {
  const known = new Set(toolNames);
  const parts: string[] = [];
  for (const field of ["readonlyTools", "confirmTools", "includeTools", "excludeTools"] as const) {
    const unknown = [...new Set(manifest[field] ?? [])].filter((name) => !known.has(name));
    if (unknown.length) parts.push(`${field} lists ${unknown.map((name) => `'${name}'`).join(", ")}`);
  }
  if (!parts.length) return undefined;
  return `plugin '${manifest.prefix}' (${manifest.file}): ${parts.join(" and ")}, which its tools do not include; check the spelling against the tool list (the names are the server's, without the prefix)`;
}
