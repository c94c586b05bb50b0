import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { RUNTIME_ROOT } from "../paths.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { manifestFromEntry } from "./mcp-servers.js";

/**
 * The embedded default: with no config file, the server still serves something real on a fresh
 * machine with no network — the reference filesystem server scoped to the working directory
 * (its writes need confirm, from its own readOnlyHint annotations) and the memory server. Both
 * are dependencies of this package, started with this Node binary; nothing is downloaded.
 */

function entryPoint(pkg: string): string {
  const require = createRequire(path.join(RUNTIME_ROOT, "package.json"));
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

export function memoryFilePath(env: NodeJS.ProcessEnv): string {
  if (env.AGENT_TOOLS_MEMORY_FILE) return path.resolve(env.AGENT_TOOLS_MEMORY_FILE);
  const stateHome = env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(stateHome, "agent-tools-runtime", "memory.jsonl");
}

/** Where the embedded default's manifests say they come from. */
export const EMBEDDED_ORIGIN = path.join(RUNTIME_ROOT, "(embedded default)");

export function defaultManifests(cwd: string, env: NodeJS.ProcessEnv): PluginManifest[] {
  const origin = EMBEDDED_ORIGIN;
  const memoryFile = memoryFilePath(env);
  try {
    mkdirSync(path.dirname(memoryFile), { recursive: true });
  } catch {
    // the memory server reports an unwritable file itself, on first use
  }
  return [
    manifestFromEntry(origin, "filesystem", {
      command: process.execPath,
      args: [entryPoint("@modelcontextprotocol/server-filesystem"), cwd],
      description: `Files in the working directory ${cwd}: read, search, list, and (with confirm) write.`,
      discoverHint: `Paths are inside ${cwd}.`,
    }),
    manifestFromEntry(origin, "memory", {
      command: process.execPath,
      args: [entryPoint("@modelcontextprotocol/server-memory")],
      env: { MEMORY_FILE_PATH: memoryFile },
      description: "A persistent knowledge graph: entities, relations and observations remembered across sessions.",
    }),
  ];
}
