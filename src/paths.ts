import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package root: this file sits at <root>/src/paths.ts or <root>/dist/paths.js. */
export const RUNTIME_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

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
