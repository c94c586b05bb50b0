import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { interpolate } from "../adapters/shared/env-vars.js";
import type { DeclarativeAdapterSpec } from "./manifest.js";
import { findOnPath } from "./requirements.js";

/**
 * What would stop a stdio MCP server from starting, seen without starting it (`agent-tools
 * validate`): a `cwd` that is not a folder, a `command` that is not an executable file. Resolved
 * as the start resolves them (stdio-transport.ts resolveLaunch): `${VAR}`s from the host, a
 * relative cwd or command path against the plugin's folder (a config entry's: the config file's),
 * a bare command on PATH. A value whose variable is not set is the plugin's missing requirement,
 * said as its status, not here. Values are quoted as written when they hold a variable (a host
 * value is not shown), else as resolved.
 */

export interface LaunchProblem {
  /** The block's field: "cwd", "command". */
  field: string;
  message: string;
}

function resolved(value: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return interpolate(value, env, "");
  } catch {
    return undefined;
  }
}

function shown(written: string, absolute: string): string {
  return written.includes("${") ? `'${written}'` : `'${absolute}'`;
}

/** Why the program at `file` (an absolute path) cannot be run, or undefined when it can. */
function notRunnable(file: string): string | undefined {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return "is a folder, not a program";
    if (!stat.isFile()) return "is not a regular file";
    // Windows has no execute bit: the extension is what makes a file runnable there.
    if (process.platform !== "win32") accessSync(file, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "does not exist";
    if (code === "EACCES") return "is not executable (make it so with chmod +x, or name its interpreter as the command and the file in args)";
    return `cannot be read (${code ?? (error as Error).message})`;
  }
}

export function launchProblems(block: DeclarativeAdapterSpec, baseDir: string, env: NodeJS.ProcessEnv): LaunchProblem[] {
  if (block.kind !== "mcp" || typeof block.command !== "string") return [];
  const problems: LaunchProblem[] = [];
  if (typeof block.cwd === "string") {
    const cwd = resolved(block.cwd, env);
    if (cwd !== undefined) {
      const absolute = path.resolve(baseDir, cwd);
      let kind: string | undefined;
      try {
        kind = statSync(absolute).isDirectory() ? undefined : "which is not a folder";
      } catch {
        kind = "which does not exist";
      }
      if (kind) problems.push({ field: "cwd", message: `names ${shown(block.cwd, absolute)}, ${kind}; the server is started in this folder` });
    }
  }
  const command = resolved(block.command, env);
  if (command !== undefined && command !== "") {
    if (/[\\/]/.test(command)) {
      const absolute = path.resolve(baseDir, command);
      const why = notRunnable(absolute);
      if (why) problems.push({ field: "command", message: `names ${shown(block.command, absolute)}, which ${why}` });
    } else if (!findOnPath(command, env)) {
      problems.push({ field: "command", message: `names ${shown(block.command, command)}, which is not found on PATH as an executable file; install it or give its path` });
    }
  }
  return problems;
}
