import { createRequire } from "node:module";
import path from "node:path";
import { unsafeRoot } from "../adapters/filesystem/guard.js";
import { whyNotAFolder } from "../is-directory.js";
import { RUNTIME_ROOT, runtimeStateFolder } from "../paths.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { createFoldersOf, whyNotWritableFile } from "../writable-file.js";
import { manifestFromEntry } from "./mcp-servers.js";
import { unexpandedTilde, type WrongValue } from "./tilde.js";

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
 *
 * A value of AGENT_TOOLS_FS_ROOT or AGENT_TOOLS_MEMORY_FILE that cannot be used (a folder that is
 * not there, a memory "file" that is a folder, a `~` no shell expanded) is a problem of the fleet
 * (`setBy.problem`: validate fails, the start says it) and leaves that plugin not configured, so a
 * call answers NOT_CONFIGURED naming the variable instead of a server failing to start.
 */

/** The embedded plugins' names (and prefixes), as `plugins.disable` may name them. */
export const EMBEDDED_PLUGIN_NAMES = ["filesystem", "memory"] as const;
const [FILESYSTEM, MEMORY] = EMBEDDED_PLUGIN_NAMES;

const FS_ROOT_VARIABLE = "AGENT_TOOLS_FS_ROOT";
const MEMORY_FILE_VARIABLE = "AGENT_TOOLS_MEMORY_FILE";

/**
 * A value the user set and got wrong, said two ways: the problem validate and the start list, and
 * the requirement "not configured: set …" prints on each call (so it carries the why and the fix).
 */
function wrongValue(variable: string, value: string, wants: string, plugin: string, wrong: WrongValue): { requirement: string; problem: string } {
  const what = `${variable}=${value} ${wrong.why}`;
  return { requirement: `${variable} (${wants}; ${what}; ${wrong.fix})`, problem: `${what}, so the embedded ${plugin} plugin serves nothing; ${wrong.fix}` };
}

/** What is wrong with the folder AGENT_TOOLS_FS_ROOT names, or undefined when it can be served. */
function namedRootProblem(named: string, root: string): WrongValue | undefined {
  const fix = `set ${FS_ROOT_VARIABLE} to an existing project folder, or unset it to serve the working folder`;
  const notAFolder = whyNotAFolder(root);
  const unsafe = notAFolder ? undefined : unsafeRoot(root);
  return (
    unexpandedTilde(FS_ROOT_VARIABLE, named) ??
    (notAFolder ? { why: `names ${root}, which ${notAFolder}`, fix } : undefined) ??
    (unsafe ? { why: `is refused: ${unsafe} (it never serves the whole disk or the home folder)`, fix } : undefined)
  );
}

type EmbeddedRoot = { root: string } | { refused: string; requirement: string; problem?: string; otherwise?: string };

/** The folder the embedded filesystem plugin serves, or why there is none. */
function embeddedFilesystemRoot(cwd: string, env: NodeJS.ProcessEnv): EmbeddedRoot {
  const named = env[FS_ROOT_VARIABLE];
  const root = path.resolve(cwd, named || ".");
  if (named) {
    const wrong = namedRootProblem(named, root);
    if (!wrong) return { root };
    return { refused: `${FS_ROOT_VARIABLE}=${named} ${wrong.why}`, ...wrongValue(FS_ROOT_VARIABLE, named, "a project folder", FILESYSTEM, wrong) };
  }
  const unsafe = unsafeRoot(root);
  if (!unsafe) return { root };
  // Started from `/` or home with nothing set is how some clients start servers, not a mistake:
  // the plugin is not configured (not a problem), and says the why and both fixes.
  return {
    refused: `the working folder ${unsafe}`,
    requirement: `${FS_ROOT_VARIABLE}=<project folder> (the working folder ${unsafe}: by default it never serves the whole disk or the home folder)`,
    otherwise: "start the client in the project folder",
  };
}

function entryPoint(pkg: string): string {
  const require = createRequire(path.join(RUNTIME_ROOT, "package.json"));
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

function memoryFilePath(env: NodeJS.ProcessEnv): string {
  if (env[MEMORY_FILE_VARIABLE]) return path.resolve(env[MEMORY_FILE_VARIABLE]);
  return path.join(runtimeStateFolder(env), "memory.jsonl");
}

/**
 * What is wrong with the memory server's file, or undefined when it can be written (a missing
 * folder is created). Checked here because the server itself only fails on its first read or
 * write, with an error (EISDIR) that names neither the file's setting nor the fix.
 */
function memoryFileProblem(file: string, env: NodeJS.ProcessEnv): { requirement: string; problem: string } | undefined {
  const named = env[MEMORY_FILE_VARIABLE];
  const unwritable = whyNotWritableFile(file);
  const fix = `set ${MEMORY_FILE_VARIABLE} to a file path this process may write (a missing folder is created)${named ? ", or unset it to use the default file" : ""}`;
  const wrong = (named ? unexpandedTilde(MEMORY_FILE_VARIABLE, named) : undefined) ?? (unwritable ? { why: `names ${file}, which ${unwritable}`, fix } : undefined);
  if (!wrong) return undefined;
  // Unset, the default file under XDG_STATE_HOME is the one that cannot be written: the variable is still the fix.
  return wrongValue(MEMORY_FILE_VARIABLE, named ?? "(unset: the default file)", "a file the knowledge graph is kept in", MEMORY, wrong);
}

/** Where the embedded default's manifests say they come from. */
export const EMBEDDED_ORIGIN = path.join(RUNTIME_ROOT, "(embedded default)");

function filesystemManifest(origin: string, cwd: string, env: NodeJS.ProcessEnv, hidden: readonly string[]): PluginManifest {
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
  manifest.adapter = { ...(manifest.adapter as Record<string, unknown>), kind: "mcp-filesystem", roots: [root], hide: [...hidden] } as PluginManifest["adapter"];
  manifest.setBy = { variable: FS_ROOT_VARIABLE, ...("problem" in place && place.problem ? { problem: place.problem } : {}) };
  if ("refused" in place) {
    manifest.requires.env.push(place.requirement);
    if (place.otherwise) manifest.requires.otherwise = place.otherwise;
  }
  return manifest;
}

function memoryManifest(origin: string, env: NodeJS.ProcessEnv): PluginManifest {
  const memoryFile = memoryFilePath(env);
  const wrong = memoryFileProblem(memoryFile, env);
  if (!wrong) {
    try {
      createFoldersOf(memoryFile);
    } catch {
      // the memory server reports an unwritable file itself, on first use
    }
  }
  // The server rewrites its whole file on each write, with no lock of its own: like any entry that
  // runs it, this one gets its calls one at a time and a lock beside the file, `${memoryFile}.lock`
  // (unsafe-servers.ts), the one a user's entry naming the same file takes too.
  const manifest = manifestFromEntry(
    origin,
    MEMORY,
    {
      command: process.execPath,
      args: [entryPoint("@modelcontextprotocol/server-memory")],
      env: { MEMORY_FILE_PATH: memoryFile },
      description: "A knowledge graph (entities, relations, observations) kept across sessions.",
    },
    "mcpServers",
    env,
  );
  manifest.setBy = { variable: MEMORY_FILE_VARIABLE, ...(wrong ? { problem: wrong.problem } : {}) };
  if (wrong) manifest.requires.env.push(wrong.requirement);
  return manifest;
}

/**
 * `hidden`: files the filesystem plugin never serves beyond the credential-file rule: the config
 * file that was loaded and the env files it names (secretFilesOf).
 */
export function defaultManifests(cwd: string, env: NodeJS.ProcessEnv, hidden: readonly string[] = []): PluginManifest[] {
  return [filesystemManifest(EMBEDDED_ORIGIN, cwd, env, hidden), memoryManifest(EMBEDDED_ORIGIN, env)];
}
