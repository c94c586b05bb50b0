import path from "node:path";
import { runtimeStateFolder } from "../paths.js";
import type { McpServerEntry, StdioServerEntry } from "./config.js";
import { nearestPackage, realFile } from "./nearest-package.js";
import { workingFolderOf } from "../adapters/shared/working-folder.js";

/**
 * Downstream servers known to lose data when called at once, and the protective defaults every
 * config entry that runs one gets.
 *
 * Why: the reference memory server reads its whole file, changes it and writes it back on each
 * call, with no lock of its own. Eight parallel `create_entities` all answered ok and the file
 * kept one. Models make parallel tool calls routinely, and two client windows run two runtimes on
 * one file. The embedded memory plugin was protected, but a user's own entry for the same server
 * (pasted from their client's config, which turns the embedded plugins off) was not. So the rule
 * follows what an entry runs, not who wrote it (the embedded plugin is an entry too):
 * `maxConcurrentCalls: 1` (this runtime's calls to it go one at a time) and a `lockFile` (its
 * writes hold it against other runtimes, adapters/mcp/call-gate.ts), each unless the entry sets
 * that field itself.
 *
 * Recognised loosely on purpose: a wrong match costs an entry its parallelism, a missed one costs
 * the user's data.
 */

interface UnsafeServer {
  /** The npm package: a spec (`npx -y PKG@1`), a folder in a path (node_modules/PKG/dist/index.js), or the package.json name above a script. */
  package: string;
  /** Its bins, run by name (`mcp-server-memory` on PATH, node_modules/.bin/mcp-server-memory). */
  bins: readonly string[];
  /** Its container images, run by docker or podman. */
  images: readonly string[];
  /**
   * A word the path to a copy kept elsewhere holds (its repository keeps it in src/memory): only
   * such paths are looked up on disk, so the other entries cost no file reads at start.
   */
  pathHint: string;
  /** What goes wrong with calls at once, as the start-up line says it. */
  why: string;
  /** The lock beside the data the entry names, or undefined when only the server knows where its data is. */
  dataLock: (entry: StdioServerEntry, via: Via) => string | undefined;
}

/** How the entry was recognised: an image runs in a container, whose paths are not this machine's. */
type Via = "package" | "bin" | "image";

const MEMORY_FILE_VARIABLE = "MEMORY_FILE_PATH";

export const UNSAFE_SERVERS: readonly UnsafeServer[] = [
  {
    package: "@modelcontextprotocol/server-memory",
    bins: ["mcp-server-memory"],
    images: ["mcp/memory"],
    pathHint: "memory",
    why: "it rewrites its whole file on each write, so writes made at once are lost",
    // `<file>.lock`, the lock the embedded memory plugin takes for the same file: two runtimes on
    // one file take one lock whichever of them configured it. A `${VAR}` path is resolved as the
    // child's value is (the lock's path is interpolated from the same host variables). A relative
    // path, or none, is resolved by the server against its own dist folder (inside npx's cache
    // for `npx -y`), which only it knows: such entries share one lock instead.
    dataLock: (entry, via) => {
      const file = entry.env?.[MEMORY_FILE_VARIABLE];
      if (via === "image" || !file) return undefined;
      return path.isAbsolute(file) || file.startsWith("${") ? `${file}.lock` : undefined;
    },
  },
];

/** The lock of the entries whose data only their server can place: one per known server, in this runtime's state folder. */
function sharedLock(server: UnsafeServer, env: NodeJS.ProcessEnv): string {
  return path.join(runtimeStateFolder(env), "locks", `${server.package.replace(/^@/, "").replace(/[/\\]/g, "-")}.lock`);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The command line's words, a shell's `-c` line split into its own; quotes stripped and `\` read as `/`. */
function commandWords(entry: StdioServerEntry): string[] {
  return [entry.command, ...(entry.args ?? [])]
    .flatMap((word) => word.trim().split(/\s+/))
    .map((word) => word.replace(/^["']|["']$/g, "").replace(/\\/g, "/"))
    .filter(Boolean);
}

const CONTAINER_RUNNERS = new Set(["docker", "podman", "nerdctl"]);
const programName = (word: string): string => path.posix.basename(word).toLowerCase().replace(/\.(exe|cmd|ps1|js|mjs|cjs)$/, "");

/** A server's patterns, made once: `@scope/name`, `@scope/name@1.2`, `…/node_modules/@scope/name/dist/index.js`; `mcp/memory:tag`. */
const PATTERNS = new Map(
  UNSAFE_SERVERS.map((server) => [
    server,
    {
      inPackage: new RegExp(`(?:^|/)${escapeRegExp(server.package)}(?:@[^/]*)?(?:/|$)`),
      image: new RegExp(`(?:^|/)(?:${server.images.map(escapeRegExp).join("|")})(?::[\\w.-]+)?(?:@sha256:[0-9a-f]+)?$`),
    },
  ]),
);

function recognise(server: UnsafeServer, words: readonly string[], dir: string | undefined): Via | undefined {
  const { inPackage, image } = PATTERNS.get(server)!;
  if (words.some((word) => inPackage.test(word))) return "package";
  if (words.some((word) => server.bins.includes(programName(word)))) return "bin";
  if (server.images.length && CONTAINER_RUNNERS.has(programName(words[0] ?? "")) && words.some((word) => image.test(word))) return "image";
  // A script of the package kept elsewhere (a clone of its repository, a copied folder): the package.json above it says.
  if (dir === undefined) return undefined;
  // Any word that is a file there (`node server.js` names its script without a slash) and mentions the server.
  const scripts = words.filter((word) => !word.startsWith("-") && !word.includes("${") && word.toLowerCase().includes(server.pathHint));
  return scripts.some((word) => {
    const real = realFile(path.resolve(dir, word));
    return real !== undefined && nearestPackage(real)?.json.name === server.package;
  })
    ? "package"
    : undefined;
}

export interface ProtectiveDefaults {
  /** The fields the entry left unset, with their protective values. */
  fields: { maxConcurrentCalls?: number; lockFile?: string };
  /** What was done and why, for the start-up line. */
  said: string;
}

/**
 * The protective defaults of an entry that runs a server listed above, or undefined when it runs
 * none (an HTTP entry is another host's server) or sets both fields itself. `configFile`'s folder
 * (and the entry's `cwd`) is where a relative script is looked for.
 */
export function protectiveDefaults(entry: McpServerEntry, configFile: string, env: NodeJS.ProcessEnv): ProtectiveDefaults | undefined {
  if (!("command" in entry) || (entry.maxConcurrentCalls !== undefined && entry.lockFile !== undefined)) return undefined;
  const words = commandWords(entry);
  const dir = entry.cwd?.includes("${") ? undefined : workingFolderOf(entry.cwd, path.dirname(configFile), (cwd) => cwd);
  for (const server of UNSAFE_SERVERS) {
    const via = recognise(server, words, dir);
    if (via === undefined) continue;
    const fields: ProtectiveDefaults["fields"] = {};
    const done: string[] = [];
    if (entry.maxConcurrentCalls === undefined) {
      fields.maxConcurrentCalls = 1;
      done.push("its calls go one at a time");
    }
    if (entry.lockFile === undefined) {
      fields.lockFile = server.dataLock(entry, via) ?? sharedLock(server, env);
      done.push(`its writes hold the lock ${fields.lockFile}`);
    }
    return { fields, said: `${server.package} (${server.why}): ${done.join(" and ")}` };
  }
  return undefined;
}
