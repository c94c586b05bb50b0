import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { insideRuntimePackage, packageJson, RUNTIME_ROOT } from "../paths.js";

/**
 * Plugin code imports the kit the README documents (`agent-tools-runtime/plugin`, `/adapters`, or
 * the package itself). A plugin inside this package finds it by the package's self-reference; one
 * elsewhere (AGENT_TOOLS_PLUGINS_DIR, `plugins.dirs`) has no node_modules holding it, and Node
 * would answer "Cannot find package 'agent-tools-runtime'". So before the first such plugin's code
 * is imported, a resolve hook is registered that resolves this package's name, wherever the
 * importing file is, as if imported from inside the running runtime: its `exports` map, its
 * build. The running copy wins over one installed beside the plugin on purpose: one kit per
 * process, of the version that runs the plugin (a second copy would bring its own classes, so
 * `instanceof SkillError` would fail across them).
 *
 * Customization hooks run on a thread of their own, started by `register`: a cost paid only by a
 * start that loads a plugin from outside the package, and once. Every other specifier goes on
 * untouched. The hook is a data: module, so it needs no file of its own in the build.
 *
 * A name the package does not export (`agent-tools-runtime/internal`) fails as Node says it, but
 * Node's message would name the package's package.json as the importer (the hook resolves from
 * there): the hook says instead which file imported it and what the package exports.
 */

const HOOK = `
import { fileURLToPath } from "node:url";
let parentURL, name, exported;
export function initialize(data) { parentURL = data.parentURL; name = data.name; exported = data.exported; }
export async function resolve(specifier, context, nextResolve) {
  if (specifier !== name && !specifier.startsWith(name + "/")) return nextResolve(specifier, context);
  // Read before nextResolve: Node writes the context it is given over this one.
  const from = context.parentURL;
  try {
    return await nextResolve(specifier, { ...context, parentURL });
  } catch (error) {
    if (error?.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw error;
    const importer = from?.startsWith("file:") ? fileURLToPath(from) : from ?? "a plugin";
    const named = Object.assign(new Error(\`\${importer} imports '\${specifier}', which \${name} does not export; it exports \${exported.map((s) => "'" + s + "'").join(", ")}: import one of those\`), { code: error.code });
    throw named;
  }
}`;

let registered = false;

/** The names the package's `exports` map offers ("agent-tools-runtime", "agent-tools-runtime/plugin"…), for the hook's error. */
function exportedNames(name: string): string[] {
  const exports = (packageJson() as { exports?: Record<string, unknown> }).exports ?? {};
  return Object.keys(exports).map((key) => (key === "." ? name : `${name}/${key.replace(/^\.\//, "")}`));
}

/** Make the kit importable by `file` (plugin code about to be imported): registers the hook once, for the first file outside the package. */
export function makeKitResolvableFor(file: string): void {
  if (registered || insideRuntimePackage(file)) return;
  registered = true;
  const { name } = packageJson();
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
    data: { parentURL: pathToFileURL(path.join(RUNTIME_ROOT, "package.json")).href, name, exported: exportedNames(name) },
  });
}
