import type { IFileSystem } from "just-bash";
import { describeThrown } from "../runtime/errors.js";
import { carryRefusal } from "./carried-entries.js";

/**
 * The /workdir mount's guard: files that commonly hold credentials (`.env`, key files, `.npmrc`,
 * the agent-tools config and MCP client configs with their literal `env` values, `.git` with remote URLs…) do not exist
 * as far as the sandbox can tell: they are left out of listings, reads and other operations on
 * them fail with ENOENT, and writes to them are dropped. The mount is off by default; this
 * keeps "no credential in the sandbox's files" true when it is on.
 */

const HIDDEN_NAMES = new Set([
  ".env",
  ".envrc",
  ".git",
  ".git-credentials",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  "agent-tools.config.json",
  "credentials.json",
  // Claude Code's login (.claude/.credentials.json), Vault, Terraform, boto and s3cmd tokens, Azure's CLI folder.
  ".credentials.json",
  ".vault-token",
  ".terraformrc",
  "credentials.tfrc.json",
  ".boto",
  ".s3cfg",
  ".azure",
  // MCP client configs: their server entries carry literal tokens in `env` and `headers`.
  ".mcp.json",
  ".claude.json",
  "claude_desktop_config.json",
]);
/** Shell and REPL histories (.bash_history, .zsh_history, .zhistory, .python_history, .psql_history…): commands typed with tokens in them. */
const HISTORY_FILE = /^\.[a-z0-9_-]*history$/;
const HIDDEN_PATTERNS = [/^\.env\./, /\.(pem|key|p12|pfx|keystore|jks)$/, /^id_(rsa|dsa|ecdsa|ed25519)/, /^\.?secrets?(\.|$)/, HISTORY_FILE];

/**
 * MCP client configs (and other tools' logins) whose own names are too common to hide everywhere (`mcp.json`,
 * `settings.json`, `config.toml`, `hosts.yml`): hidden only inside the client's folder, keyed by that
 * folder's name as `credentialNameKey` gives it. The agent-tools user-level file is one of them.
 */
const HIDDEN_IN_FOLDER: ReadonlyMap<string, RegExp> = new Map([
  [".cursor", /^mcp\.json$/],
  [".vscode", /^mcp\.json$/],
  [".codex", /^config\.toml$/],
  [".claude", /^settings(\..+)?\.json$/],
  [".gemini", /^settings\.json$/],
  ["agent-tools-runtime", /^config\.json$/],
  // Other tools' logins, under names too common to hide anywhere else: gh's and hub's oauth
  // tokens, gcloud's folder (in .config), cargo's and gem's registry tokens.
  ["gh", /^hosts\.ya?ml$/],
  [".config", /^(gcloud|hub)$/],
  [".cargo", /^credentials(\.toml)?$/],
  [".gem", /^credentials$/],
]);

/**
 * The form a name takes before it is matched, so that every spelling that opens the same file on
 * some filesystem is caught: case folded (macOS and Windows default filesystems are
 * case-insensitive, so `.ENV` opens `.env`), Unicode composed (macOS stores decomposed names),
 * an NTFS stream suffix cut (`.env::$DATA` and `.env:x` open `.env`'s streams) and trailing dots and
 * spaces dropped (Windows ignores them: `.env.` and `.env ` open `.env`).
 */
function credentialNameKey(name: string): string {
  const colon = name.indexOf(":");
  const base = colon > 0 ? name.slice(0, colon) : name;
  return base.normalize("NFC").toLowerCase().replace(/[. ]+$/, "");
}

/**
 * The one rule for "this file name commonly holds credentials" (the /workdir mount here, the
 * embedded filesystem plugin too): exact names and patterns, matched on `credentialNameKey`.
 */
export function isHiddenName(name: string): boolean {
  const key = credentialNameKey(name);
  if (key === "") return false;
  return HIDDEN_NAMES.has(key) || HIDDEN_PATTERNS.some((p) => p.test(key));
}

/** True when `name` inside a folder named `folder` is a client config hidden by where it is (`.cursor/mcp.json`), though the name alone is not. */
export function isHiddenInFolder(folder: string | undefined, name: string): boolean {
  if (folder === undefined) return false;
  return HIDDEN_IN_FOLDER.get(credentialNameKey(folder))?.test(credentialNameKey(name)) ?? false;
}

/** True when a path, as its segments from the top down, names a hidden file or passes through one: a hidden name, or a client config inside its client's folder. */
export function isHiddenSegments(segments: readonly string[]): boolean {
  const named = segments.filter((segment) => segment !== "" && segment !== ".");
  return named.some((segment, i) => isHiddenName(segment) || isHiddenInFolder(named[i - 1], segment));
}

/** `path` normalised (".", ".." and doubled slashes resolved) and each segment keyed, so every spelling of one path compares equal. */
function pathKey(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(credentialNameKey(segment));
  }
  return `/${segments.join("/")}`;
}

/**
 * True when any segment of `path` is a hidden name, or `path` is one of `extra` (compared the same
 * case-folded way). `rootName`: the name of the folder mounted, which leads every path for the
 * per-folder rules (a mount of ~/.cursor hides its /mcp.json).
 */
function isHiddenPath(path: string, extra: ReadonlySet<string> = new Set(), rootName?: string): boolean {
  if (extra.size > 0 && extra.has(pathKey(path))) return true;
  // The path as written and as resolved: `.env/..` passes through a hidden folder, `.cursor/x/../mcp.json` lands on a hidden file.
  return [path.split("/"), pathKey(path).split("/")].some((segments) => {
    // The mounted folder's name takes part in the per-folder rules only: a hidden name of its own would hide the whole mount.
    const first = segments.find((segment) => segment !== "" && segment !== ".");
    return isHiddenSegments(segments) || (first !== undefined && isHiddenInFolder(rootName, first));
  });
}

function missing(path: string, op: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${op} '${path}'`), { code: "ENOENT" });
}

/**
 * A folder whose move or copy would carry a hidden file to a path where it is not hidden: a
 * client config whose folder is renamed, the config file (hidden by its path, so a folder above
 * it must keep its path), a hard link to it (its copy lives in memory, where no device and inode
 * tell it). The message names the rule and the way around it; it says nothing of the file.
 */
function holdsHidden(op: "cp" | "mv"): Error {
  // The command's own message names the folder (as the script wrote it); this says why.
  return Object.assign(new Error(`refused: this folder holds a file hidden from the sandbox, and a hidden file keeps its path; ${op === "mv" ? "move" : "copy"} the files inside it one by one instead`), { code: "EACCES" });
}

/** A file of the folder that would be hidden at its new path (`x/settings.json` carried to `.claude/`): it would vanish from the sandbox. */
function wouldHide(op: "cp" | "mv", entry: string): Error {
  const verb = op === "mv" ? "move" : "copy";
  return Object.assign(new Error(`refused: '${entry}' in this folder would be hidden at its new path (a name that commonly holds credentials or a client's settings), where nothing is written; ${verb} the folder under another name`), { code: "EACCES" });
}

/** A folder with more entries than are walked before a move or copy (carried-entries.ts). */
function tooManyToCarry(op: "cp" | "mv", limit: number): Error {
  const verb = op === "mv" ? "move" : "copy";
  return Object.assign(new Error(`refused: this folder holds more than ${limit} files and folders, more than are checked for hidden files before a ${verb}; ${verb} its sub-folders one by one instead`), { code: "EACCES" });
}

/**
 * A symbolic link already on disk is not followed in the mount, and the overlay cannot copy one:
 * a folder holding one was half-copied before the copy stopped at it with ENOENT, printed as
 * "cannot stat" of the folder. Checked before anything is copied, so nothing is half-done. No
 * ENOENT in the text: cp and mv would print "cannot stat" for it.
 */
function holdsSymlink(op: "cp" | "mv", link: string): Error {
  const verb = op === "mv" ? "move" : "copy";
  return Object.assign(new Error(`refused: '${link}' in this folder is a symbolic link, and links are not followed inside /workdir; ${verb} the other files one by one instead`), { code: "EACCES" });
}

/**
 * The overlay makes no symbolic links (none may lead out of the mount); just-bash's own EPERM
 * text for that is about hard links to directories, so it gets its own message.
 */
function noSymlinks(): Error {
  // No "EPERM" in the text: just-bash's ln prints "hard link not allowed for directory" for any.
  // No path either: ln masks paths it does not know as "<path>".
  return Object.assign(new Error("symbolic links cannot be made inside the /workdir mount (so that none leads out of it); make the link in $HOME, or copy the file"), { code: "EACCES" });
}

/**
 * Wrap `inner`; `extraHidden` are paths inside it (as the mount sees them, e.g. "/conf/my.json") to
 * hide too, and `hiddenOnDisk` says of any other path whether it is one of those files under a name
 * of its own (a hard link made on disk: same-file.ts). `rootName`: the name of the folder on disk
 * that is mounted (its real path's last segment), so `.cursor` mounted hides its `/mcp.json`.
 */
export function hideCredentialFiles(inner: IFileSystem, extraHidden: Iterable<string> = [], hiddenOnDisk?: (path: string) => boolean, rootName?: string): IFileSystem {
  const extra = new Set([...extraHidden].map(pathKey));
  const hidden = (p: string): boolean => isHiddenPath(p, extra, rootName) || (hiddenOnDisk?.(p) ?? false);
  const guard = <T>(op: string, p: string, run: () => Promise<T>): Promise<T> => (hidden(p) ? Promise.reject(missing(p, op)) : run());
  const join = (dir: string, name: string): string => `${dir.replace(/\/+$/, "")}/${name}`;
  /**
   * A folder moved or copied inside the mount is walked first (carried-entries.ts, the rule the
   * filesystem plugin shares): an entry hidden now and not at its new path, or the reverse, is
   * refused, and so is a symbolic link on disk (the overlay cannot copy one: a folder holding one
   * was half-copied before the copy stopped at it). Walked as the overlay sees it.
   */
  const moveOrCopy = async (op: "cp" | "mv", s: string, d: string, run: () => Promise<void>): Promise<void> => {
    if (hidden(s) || hidden(d)) throw missing(hidden(s) ? s : d, op);
    const source = await inner.lstat(s);
    const tree = { readdir: (dir: string) => inner.readdir(dir), lstat: (entry: string) => inner.lstat(entry) };
    const refused = source.isDirectory ? await carryRefusal(tree, s, d, { hidden, refuseLinks: true }) : undefined;
    if (!refused) return run();
    if (refused.kind === "too-many") throw tooManyToCarry(op, refused.limit);
    // A hidden entry is refused without its name, which the sandbox does not see.
    if (refused.kind === "shown" || (refused.kind === "link" && refused.hidden)) throw holdsHidden(op);
    throw refused.kind === "link" ? holdsSymlink(op, refused.entry) : wouldHide(op, refused.entry);
  };
  const fs: IFileSystem = {
    readFile: (p, o) => guard("open", p, () => inner.readFile(p, o)),
    readFileBuffer: (p) => guard("open", p, () => inner.readFileBuffer(p)),
    // Writes to a hidden path are dropped rather than refused: just-bash does not turn a failed
    // redirection write into a shell error (the whole command line would fail), and a dropped
    // write leaves nothing to read back, which is what hidden means.
    writeFile: (p, c, o) => (hidden(p) ? Promise.resolve() : inner.writeFile(p, c, o)),
    appendFile: (p, c, o) => (hidden(p) ? Promise.resolve() : inner.appendFile(p, c, o)),
    exists: (p) => (hidden(p) ? Promise.resolve(false) : inner.exists(p)),
    stat: (p) => guard("stat", p, () => inner.stat(p)),
    lstat: (p) => guard("lstat", p, () => inner.lstat(p)),
    mkdir: (p, o) => (hidden(p) ? Promise.resolve() : inner.mkdir(p, o)),
    readdir: (p) => guard("scandir", p, async () => (await inner.readdir(p)).filter((name) => !hidden(join(p, name)))),
    rm: (p, o) => guard("rm", p, () => inner.rm(p, o)),
    cp: (s, d, o) => moveOrCopy("cp", s, d, () => inner.cp(s, d, o)),
    mv: (s, d) => moveOrCopy("mv", s, d, () => inner.mv(s, d)),
    resolvePath: (b, p) => inner.resolvePath(b, p),
    getAllPaths: () => inner.getAllPaths().filter((p) => !hidden(p)),
    chmod: (p, m) => guard("chmod", p, () => inner.chmod(p, m)),
    symlink: (t, l) =>
      hidden(t) || hidden(l)
        ? Promise.reject(missing(l, "symlink"))
        : inner.symlink(t, l).catch((error: unknown) => Promise.reject(/EPERM/.test(describeThrown(error)) ? noSymlinks() : error)),
    link: (e, n) => (hidden(e) || hidden(n) ? Promise.reject(missing(n, "link")) : inner.link(e, n)),
    readlink: (p) => guard("readlink", p, () => inner.readlink(p)),
    realpath: (p) => guard("realpath", p, () => inner.realpath(p)),
    utimes: (p, a, m) => guard("utimes", p, () => inner.utimes(p, a, m)),
  };
  if (inner.readFileBytes) {
    const readBytes = inner.readFileBytes.bind(inner);
    fs.readFileBytes = (p) => guard("open", p, () => readBytes(p));
  }
  if (inner.readdirWithFileTypes) {
    const readTyped = inner.readdirWithFileTypes.bind(inner);
    fs.readdirWithFileTypes = (p) => guard("scandir", p, async () => (await readTyped(p)).filter((entry) => !hidden(join(p, entry.name))));
  }
  return fs;
}
