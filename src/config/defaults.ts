import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { unsafeRoot } from "../adapters/filesystem/guard.js";
import { RUNTIME_ROOT, xdgBase } from "../paths.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { manifestFromEntry } from "./mcp-servers.js";

/**
 * The embedded default: with no config file, the server still serves something real on a fresh
 * machine with no network — the reference filesystem server scoped to one project folder (its
 * writes need confirm, from its own readOnlyHint annotations) and the memory server. Both are
 * dependencies of this package, started with this Node binary; nothing is downloaded.
 *
 * The project folder is $AGENT_TOOLS_FS_ROOT, else the working folder. Clients start servers in
 * odd places (Claude Desktop in `/`), so the root of the disk, the home folder and any folder
 * holding it are refused: the plugin then reads as not configured, saying what to set. Files
 * that commonly hold credentials are hidden by the same rule as the text layer's /workdir.
 */

const FS_ROOT_VARIABLE = "AGENT_TOOLS_FS_ROOT";

/** The folder the embedded filesystem plugin serves, or why there is none. */
function embeddedFilesystemRoot(cwd: string, env: NodeJS.ProcessEnv): { root: string } | { refused: string; requirement: string } {
  const named = env[FS_ROOT_VARIABLE];
  const root = path.resolve(cwd, named || ".");
  const unsafe = unsafeRoot(root);
  if (!unsafe) return { root };
  // The requirement is what "not configured: set …" prints (error, start line, status, help), so it
  // carries the why and both fixes: a bare variable name left Desktop users guessing.
  return named
    ? { refused: `${FS_ROOT_VARIABLE}=${named} is refused: ${unsafe}`, requirement: `${FS_ROOT_VARIABLE} (a project folder; it names ${unsafe})` }
    : {
        refused: `the working folder ${unsafe}`,
        requirement: `${FS_ROOT_VARIABLE}=<project folder> (the working folder ${unsafe}: by default it never serves the whole disk or the home folder), or start the client in the project folder`,
      };
}

function entryPoint(pkg: string): string {
  const require = createRequire(path.join(RUNTIME_ROOT, "package.json"));
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

function memoryFilePath(env: NodeJS.ProcessEnv): string {
  if (env.AGENT_TOOLS_MEMORY_FILE) return path.resolve(env.AGENT_TOOLS_MEMORY_FILE);
  const stateHome = xdgBase(env.XDG_STATE_HOME) ?? path.join(os.homedir(), ".local", "state");
  return path.join(stateHome, "agent-tools-runtime", "memory.jsonl");
}

/** The embedded plugins' names (and prefixes), as `plugins.disable` may name them. */
export const EMBEDDED_PLUGIN_NAMES = ["filesystem", "memory"] as const;
const [FILESYSTEM, MEMORY] = EMBEDDED_PLUGIN_NAMES;

/** Where the embedded default's manifests say they come from. */
export const EMBEDDED_ORIGIN = path.join(RUNTIME_ROOT, "(embedded default)");

function filesystemManifest(origin: string, cwd: string, env: NodeJS.ProcessEnv, configFile: string | undefined): PluginManifest {
  const place = embeddedFilesystemRoot(cwd, env);
  const root = "root" in place ? place.root : path.resolve(cwd);
  const manifest = manifestFromEntry(origin, FILESYSTEM, {
    command: process.execPath,
    args: [entryPoint("@modelcontextprotocol/server-filesystem"), root],
    description:
      "root" in place
        ? `Files in the project folder ${root}: read, search, list, and (with confirm) write. Credential files (.env, keys, .git…) are hidden.`
        : `Files in a project folder: read, search, list, and (with confirm) write. Not serving: ${place.refused}; set ${FS_ROOT_VARIABLE} to a project folder.`,
    // Not serving: no folder to name (the refused one is exactly where paths are not).
    discoverHint: "root" in place ? `Paths are inside ${root}.` : `Not serving: set ${FS_ROOT_VARIABLE} to a project folder.`,
  });
  manifest.adapter = { ...(manifest.adapter as Record<string, unknown>), kind: "mcp-filesystem", roots: [root], hide: configFile ? [configFile] : [] } as PluginManifest["adapter"];
  if ("refused" in place) manifest.requires.env.push(place.requirement);
  return manifest;
}

export function defaultManifests(cwd: string, env: NodeJS.ProcessEnv, configFile?: string): PluginManifest[] {
  const origin = EMBEDDED_ORIGIN;
  const memoryFile = memoryFilePath(env);
  try {
    mkdirSync(path.dirname(memoryFile), { recursive: true });
  } catch {
    // the memory server reports an unwritable file itself, on first use
  }
  return [
    filesystemManifest(origin, cwd, env, configFile),
    manifestFromEntry(origin, MEMORY, {
      command: process.execPath,
      args: [entryPoint("@modelcontextprotocol/server-memory")],
      env: { MEMORY_FILE_PATH: memoryFile },
      description: "A knowledge graph (entities, relations, observations) kept across sessions.",
    }),
  ];
}
