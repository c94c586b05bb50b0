import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package root: the nearest folder above this code that holds a package.json. The code sits at
 * <root>/src/paths.ts under tsx, and inside a chunk of the bundled build (dist/chunks/…, or an
 * entry such as dist/bin/…) when built, so the depth is not fixed.
 */
export const RUNTIME_ROOT = packageRootAbove(path.dirname(fileURLToPath(import.meta.url)));

function packageRootAbove(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) break;
  }
  // No package.json above (a copied build): the folder that holds dist/ or src/.
  const parts = start.split(path.sep);
  const at = Math.max(parts.lastIndexOf("dist"), parts.lastIndexOf("src"));
  return at > 0 ? parts.slice(0, at).join(path.sep) || path.sep : path.resolve(start, "..");
}

interface PackageJson {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}

let cached: PackageJson | undefined;
export function packageJson(): PackageJson {
  cached ??= JSON.parse(readFileSync(path.join(RUNTIME_ROOT, "package.json"), "utf8")) as PackageJson;
  return cached;
}

/**
 * An XDG base folder variable's value (XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME), or
 * undefined when it is unset, blank or relative: the XDG spec says a relative path is invalid and
 * to be ignored, so the default applies instead of a folder under whatever the working folder is.
 */
export function xdgBase(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text && path.isAbsolute(text) ? text : undefined;
}

/** The XDG state folder: $XDG_STATE_HOME when absolute (xdgBase), else ~/.local/state; every file the runtime keeps across starts is under it. */
export function stateHome(env: NodeJS.ProcessEnv): string {
  return xdgBase(env.XDG_STATE_HOME) ?? path.join(env.HOME || os.homedir(), ".local", "state");
}

/** This runtime's folder for state kept across starts (the embedded memory file, shared locks): $XDG_STATE_HOME/agent-tools-runtime, else ~/.local/state/agent-tools-runtime. */
export function runtimeStateFolder(env: NodeJS.ProcessEnv): string {
  return path.join(stateHome(env), "agent-tools-runtime");
}

/** Whether `file` lies inside the running runtime's package (where plugin code finds the kit by the package's self-reference). */
export function insideRuntimePackage(file: string): boolean {
  const relative = path.relative(RUNTIME_ROOT, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
