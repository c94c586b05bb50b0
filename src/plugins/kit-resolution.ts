import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { packageJson, RUNTIME_ROOT } from "../paths.js";

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
 */

const HOOK = `
let parentURL, name;
export function initialize(data) { parentURL = data.parentURL; name = data.name; }
export function resolve(specifier, context, nextResolve) {
  if (specifier === name || specifier.startsWith(name + "/")) return nextResolve(specifier, { ...context, parentURL });
  return nextResolve(specifier, context);
}`;

let registered = false;

/** Whether `file` lies inside the running runtime's package (where the kit resolves by itself). */
function insidePackage(file: string): boolean {
  const relative = path.relative(RUNTIME_ROOT, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** Make the kit importable by `file` (plugin code about to be imported): registers the hook once, for the first file outside the package. */
export function makeKitResolvableFor(file: string): void {
  if (registered || insidePackage(file)) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
    data: { parentURL: pathToFileURL(path.join(RUNTIME_ROOT, "package.json")).href, name: packageJson().name },
  });
}
