import { statSync } from "node:fs";
import path from "node:path";
import { referencedVariables } from "../../adapters/shared/env-vars.js";
import type { PluginManifest } from "../../plugins/manifest.js";
import { envAlternatives } from "../../plugins/requirements.js";
import { sha256Hex } from "../../sha256.js";

/**
 * The cache key of a plugin's catalog: a digest of everything that decides which tools it lists —
 * its manifest (adapter block, raw settings), the values of the environment variables those
 * settings use (resolved at call time, so a different URL or account is a different catalog), for
 * a module adapter the module file's size and modification time, and the runtime's version.
 * Values are only ever hashed: neither a secret nor any other config value is stored, in the key
 * or in the entry. Any change gives another key, which is how a config change invalidates.
 */

/** Names of the environment variables a manifest's settings read: `${NAME}` references and `*Env` fields. */
function variablesOf(manifest: PluginManifest): string[] {
  const names = new Set<string>(manifest.requires.env.flatMap(envAlternatives));
  const walk = (value: unknown, key?: string): void => {
    if (typeof value === "string") {
      for (const name of referencedVariables(value)) names.add(name);
      // `tokenEnv: "N8N_MCP_TOKEN"`: the field names a variable the adapter reads.
      if (key && /Env$/.test(key) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) names.add(value);
    } else if (Array.isArray(value)) value.forEach((v) => walk(v));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(manifest.adapter);
  walk(manifest.raw);
  return [...names].sort();
}

function moduleStamp(manifest: PluginManifest): string | undefined {
  if (typeof manifest.adapter !== "string") return undefined;
  try {
    const info = statSync(path.resolve(manifest.dir, manifest.adapter));
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return "missing";
  }
}

export function catalogKey(manifest: PluginManifest, env: NodeJS.ProcessEnv, runtimeVersion: string): string {
  const variables = variablesOf(manifest).map((name) => [name, env[name] === undefined ? null : sha256Hex(env[name])]);
  return sha256Hex(
    JSON.stringify({
      runtimeVersion,
      prefix: manifest.prefix,
      name: manifest.name,
      version: manifest.version ?? null,
      file: manifest.file,
      adapter: manifest.adapter,
      adapterExport: manifest.adapterExport ?? null,
      raw: manifest.raw,
      module: moduleStamp(manifest) ?? null,
      variables,
    }),
  );
}
