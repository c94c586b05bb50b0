import path from "node:path";

/**
 * The `cwd` value that names the agent-tools runtime's own working folder (the folder the client
 * started it in, usually the project), for a stdio MCP server (a config entry or an `mcp` block) and
 * a `cli` block. Without it a relative `cwd`, and no `cwd` at all, mean the folder of the file that
 * declares the program (the plugin's folder, the config file's), which is right for a plugin that
 * ships its own scripts but wrong for a user-level config shared by every project. A folder really
 * named `@runtime` is written `./@runtime`.
 */
export const RUNTIME_FOLDER = "@runtime";

/** Whether a written `cwd` names the runtime's working folder. */
export function namesRuntimeFolder(cwd: string | undefined): boolean {
  return cwd?.trim() === RUNTIME_FOLDER;
}

/**
 * The folder a program starts in: `baseDir` without a `cwd`, the runtime's working folder for
 * RUNTIME_FOLDER, else the `cwd` (its `${VAR}`s resolved by `resolve`) against `baseDir`.
 */
export function workingFolderOf(cwd: string | undefined, baseDir: string, resolve: (written: string) => string, runtimeFolder: string = process.cwd()): string {
  if (cwd === undefined) return baseDir;
  if (namesRuntimeFolder(cwd)) return runtimeFolder;
  return path.resolve(baseDir, resolve(cwd));
}
