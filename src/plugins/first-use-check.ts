import { statSync } from "node:fs";
import path from "node:path";
import { parseBaseUrl } from "../adapters/rest/url-guard.js";
import { interpolate, requiredReferences } from "../adapters/shared/env-vars.js";
import { fieldName } from "../adapters/shared/spec-check.js";
import { blockStrings } from "./block-strings.js";
import { programLocation, resolveAllowedProgram } from "../adapters/cli/allowlist.js";
import type { DeclarativeAdapterSpec } from "./manifest.js";
import { envAlternatives, findOnPath, notRunnable } from "./requirements.js";
import { commandPath, searchedPath } from "./command-path.js";
import { workingFolderOf } from "../adapters/shared/working-folder.js";

/**
 * What would fail a configured plugin's first use, seen without starting or calling anything
 * (`agent-tools validate`; the server says these at first use, as that use's error):
 *  - a REST block's `baseUrl` without variables that the calls would refuse (a query, which is
 *    most often a key, credentials, not http(s)); the URL is not quoted with its query;
 *  - a cli block's `program` that is not an executable file (a path resolved against the plugin
 *    folder, a bare name on the host's PATH) or that neither its `allowlist` nor AGENT_CLI_ALLOWLIST
 *    admits, which every call would answer NOT_CONFIGURED;
 *  - a stdio MCP server's `cwd` that is not a folder and `command` that is not an executable file,
 *    resolved as the start resolves them (stdio-transport.ts resolveLaunch): `${VAR}`s from the host, a
 * relative cwd or command path against the plugin's folder (a config entry's: the config file's),
 * a bare command on the PATH the server gets (its env's PATH when it sets one). A value whose variable is not set is the plugin's missing requirement,
 * said as its status, not here. Values are quoted as written when they hold a variable (a host
 * value is not shown), else as resolved;
 *  - a `${VAR}` without a default, in any setting of the block, whose variable is not set and not
 *    named in `requires.env` (`declared`; every name of an `A|B` entry, which either variable
 *    satisfies: listed there, the plugin is "not configured: set VAR" instead, or configured through
 *    the other name, which the block's settings are written for): every call that resolves the
 *    setting answers NOT_CONFIGURED, as a config entry's would not start.
 */

export interface FirstUseProblem {
  /** The block's field: "baseUrl", "cwd", "command". */
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

export function firstUseProblems(block: DeclarativeAdapterSpec, baseDir: string, env: NodeJS.ProcessEnv, declared: readonly string[] = []): FirstUseProblem[] {
  return [...unsetVariableProblems(block, env, new Set(declared.flatMap(envAlternatives))), ...kindProblems(block, baseDir, env)];
}

function kindProblems(block: DeclarativeAdapterSpec, baseDir: string, env: NodeJS.ProcessEnv): FirstUseProblem[] {
  if (block.kind === "rest") return baseUrlProblems(block);
  if (block.kind === "cli") return cliProgramProblems(block, baseDir, env);
  return block.kind === "mcp" && typeof block.command === "string" ? launchProblems(block, block.command, baseDir, env) : [];
}

/**
 * Each setting of the block that reads a variable the host does not set (empty counts as unset, as
 * interpolate reads it) and `requires.env` does not name (`declared`, each name of its entries).
 */
function unsetVariableProblems(block: DeclarativeAdapterSpec, env: NodeJS.ProcessEnv, declared: ReadonlySet<string>): FirstUseProblem[] {
  return blockStrings(block).flatMap(({ segments, value }) => {
    const unset = [...new Set(requiredReferences(value))].filter((name) => !env[name] && !declared.has(name));
    if (!unset.length) return [];
    const names = unset.map((name) => `$${name}`).join(", ");
    const they = unset.length > 1 ? "they are" : "it is";
    return [{ field: fieldName("", segments), message: `needs ${names}, which ${unset.length > 1 ? "are" : "is"} not set on the host: every call that uses this setting would answer NOT_CONFIGURED until ${they} set; set ${unset.length > 1 ? "them" : "it"} in the agent-tools server's environment, and list ${unset.length > 1 ? "them" : "it"} in requires.env so the plugin reads "not configured: set ${unset.join(", ")}" meanwhile` }];
  });
}

/** A cli block's program as its calls resolve it (cli/allowlist.ts): where it is, and whether an allowlist admits it. */
function cliProgramProblems(block: DeclarativeAdapterSpec, baseDir: string, env: NodeJS.ProcessEnv): FirstUseProblem[] {
  if (typeof block.program !== "string") return [];
  const program = resolved(block.program, env);
  if (!program) return [];
  if (/[\\/]/.test(program)) {
    const location = programLocation(program, { allowlist: [], dir: baseDir });
    const why = notRunnable(location);
    if (why) return [{ field: "program", message: `names ${shown(block.program, location)}, which ${why}` }];
  } else if (!findOnPath(program, env)) {
    return [{ field: "program", message: `names ${shown(block.program, program)}, which is not found on PATH as an executable file; install it or give its path` }];
  }
  const entries = Array.isArray(block.allowlist) ? block.allowlist.map((entry) => (typeof entry === "string" ? resolved(entry, env) : undefined)).filter((entry): entry is string => entry !== undefined) : [];
  try {
    resolveAllowedProgram(program, { env, manifest: { allowlist: entries, dir: baseDir } });
    return [];
  } catch (error) {
    return [{ field: "program", message: `names ${shown(block.program, program)}, which every call refuses: ${(error as Error).message}` }];
  }
}

function baseUrlProblems(block: DeclarativeAdapterSpec): FirstUseProblem[] {
  if (typeof block.baseUrl !== "string" || block.baseUrl.includes("${")) return [];
  try {
    parseBaseUrl(block.baseUrl);
    return [];
  } catch (error) {
    return [{ field: "baseUrl", message: `is refused: ${(error as Error).message}` }];
  }
}

function launchProblems(block: DeclarativeAdapterSpec, written: string, baseDir: string, env: NodeJS.ProcessEnv): FirstUseProblem[] {
  const problems: FirstUseProblem[] = [];
  if (typeof block.cwd === "string") {
    const cwd = resolved(block.cwd, env);
    if (cwd !== undefined) {
      const absolute = workingFolderOf(cwd, baseDir, (text) => text);
      let kind: string | undefined;
      try {
        kind = statSync(absolute).isDirectory() ? undefined : "which is not a folder";
      } catch {
        kind = "which does not exist";
      }
      if (kind) problems.push({ field: "cwd", message: `names ${shown(block.cwd, absolute)}, ${kind}; the server is started in this folder` });
    }
  }
  const command = resolved(written, env);
  if (command !== undefined && command !== "") {
    if (/[\\/]/.test(command)) {
      const absolute = path.resolve(baseDir, command);
      const why = notRunnable(absolute);
      if (why) problems.push({ field: "command", message: `names ${shown(written, absolute)}, which ${why}` });
    } else {
      // The PATH the server is spawned with: its env's when it sets one (command-path.ts).
      const search = commandPath(block, env);
      if (!findOnPath(command, search.env)) {
        const fix = search.written === undefined ? "install it or give its path" : "install it in a folder of that PATH, add its folder to env.PATH, or give its path";
        problems.push({ field: "command", message: `names ${shown(written, command)}, which is not found on ${searchedPath(search)} as an executable file; ${fix}` });
      }
    }
  }
  return problems;
}
