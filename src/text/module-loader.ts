import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describeThrown } from "../runtime/errors.js";
import { EXIT } from "./exit-codes.js";
import type { ModuleVariable, TextModule } from "./module-contract.js";

/**
 * Finding and importing text modules. `load` takes a path relative to the runtime's root
 * (`commands/generic-mcp.mjs`, `commands/generic-mcp`) or a bare name (`generic-mcp`); whatever
 * it resolves to must stay inside the commands folder — checked on the path as written and
 * again after symlinks are resolved — or it is refused with its own exit code.
 */

export class ModuleLoadError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.name = "ModuleLoadError";
    this.exitCode = exitCode;
  }
}

const EXTENSIONS = [".mjs", ".js"];

function inside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** The absolute file `spec` names, or a ModuleLoadError (7 outside the root, 8 not found). */
export function resolveModulePath(spec: string, commandsDir: string): string {
  const text = spec.trim();
  if (!text) throw new ModuleLoadError(EXIT.USAGE, "load: name a module, e.g. `load commands/runtime-demo`");
  if (text.includes("\0")) throw new ModuleLoadError(EXIT.USAGE, "load: the module path holds a NUL byte");
  const root = path.resolve(commandsDir);
  const runtimeRoot = path.dirname(root);
  const bare = !text.includes("/") && !text.includes("\\") && text !== "." && text !== "..";
  const candidate = bare ? path.join(root, text) : path.resolve(runtimeRoot, text);
  if (!inside(root, candidate)) {
    throw new ModuleLoadError(EXIT.LOAD_OUTSIDE_ROOT, `load: '${text}' is outside the runtime's commands/ folder; only modules in commands/ can be loaded (see \`status\` for the list)`);
  }
  const withExtension = path.extname(candidate) ? [candidate] : EXTENSIONS.map((ext) => `${candidate}${ext}`);
  const file = withExtension.find((f) => existsSync(f) && statSync(f).isFile());
  if (!file) throw new ModuleLoadError(EXIT.LOAD_FAILED, `load: there is no module '${text}' in commands/; available: ${availableModuleFiles(root).map((f) => `commands/${f}`).join(", ") || "none"}`);
  if (!EXTENSIONS.includes(path.extname(file))) throw new ModuleLoadError(EXIT.LOAD_FAILED, `load: '${text}' is not an ES module (.mjs or .js)`);
  const real = realpathSync(file);
  if (!inside(realpathSync(root), real)) {
    throw new ModuleLoadError(EXIT.LOAD_OUTSIDE_ROOT, `load: '${text}' links to a file outside the runtime's commands/ folder; refused`);
  }
  return real;
}

export function availableModuleFiles(commandsDir: string): string[] {
  try {
    return readdirSync(commandsDir)
      .filter((f) => EXTENSIONS.includes(path.extname(f)) && !f.startsWith("_") && !f.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string" && v.length > 0);
}

function checkVariables(value: unknown, where: string): ModuleVariable[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: 'variables' must be an array of {name, description}`);
  return value.map((entry: unknown, i) => {
    const v = entry as Partial<ModuleVariable> | null;
    if (!v || typeof v.name !== "string" || typeof v.description !== "string") {
      throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: variables[${i}] needs a string 'name' and 'description'`);
    }
    return { name: v.name, description: v.description, ...(v.required ? { required: true } : {}), ...(v.secret ? { secret: true } : {}) };
  });
}

/** Import a module file and check its exports against the contract. */
export async function importTextModule(file: string, shown: string = path.basename(file)): Promise<TextModule> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ModuleLoadError(EXIT.LOAD_FAILED, `load: ${shown} failed to import: ${describeThrown(error)}`);
  }
  const where = `load: ${shown}`;
  if (typeof exports.register === "function" && exports.name === undefined && exports.setup === undefined) {
    throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: exports register(), the text-module contract of the original runtime (0.2.7), which this runtime does not load. Port it: export 'name' (kebab-case), 'description', 'commands' (the names of its commands) and 'setup(host)', which returns {commands: [{name, summary, usage, run(args, io)}]} instead of calling defineCommand and registerCommand; run(args, io) still answers {stdout, stderr, exitCode}. The README's "Text modules" section has the contract and an example`);
  }
  if (typeof exports.name !== "string" || !/^[a-z][a-z0-9-]*$/.test(exports.name)) throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: must export 'name', a kebab-case string`);
  if (typeof exports.description !== "string") throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: must export 'description', a string`);
  if (!isStringArray(exports.commands)) throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: must export 'commands', the names of the commands it defines`);
  if (typeof exports.setup !== "function") throw new ModuleLoadError(EXIT.LOAD_FAILED, `${where}: must export a 'setup(host)' function`);
  return {
    name: exports.name,
    description: exports.description,
    variables: checkVariables(exports.variables, where),
    commands: exports.commands,
    setup: exports.setup as TextModule["setup"],
    ...(typeof exports.missing === "function" ? { missing: exports.missing as NonNullable<TextModule["missing"]> } : {}),
  };
}
