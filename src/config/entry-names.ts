/**
 * The names an `mcpServers` entry goes by once it is a plugin (mcp-servers.ts): its key is the
 * plugin's name, and a tool-name-safe form of the key its prefix. `plugins.disable` may give
 * either, as for any plugin.
 */

/** Config keys are free text ("GitHub Server"); prefixes are tool-name safe. */
export function prefixFromKey(key: string): string {
  let prefix = key.toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  if (!/^[a-z]/.test(prefix)) prefix = `s_${prefix}`;
  return prefix.slice(0, 32);
}

/** The names `plugins.disable` may use for the entry `key`: its prefix and its key. */
export function entryNames(key: string): [prefix: string, name: string] {
  return [prefixFromKey(key), key];
}
