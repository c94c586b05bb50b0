import { pathToFileURL } from "node:url";
import { RuntimeError } from "../errors.js";
import type { Runtime } from "../runtime/runtime.js";

/**
 * A server keeps serving through plugin code that fails outside any call: a promise a skill or
 * an adapter started and never handled (a write it fired and forgot, a background poll), or an
 * exception thrown from a timer or an event handler of an adapter. Node's default is to end the
 * process, and with it every session (HTTP) or the client's whole tool set (stdio), for one
 * plugin's mistake.
 *
 * Both kinds are logged and the server goes on. An uncaught exception cannot tell where it came
 * from with certainty, and it can leave the code it interrupted half done; but the runtime keeps
 * no state that a throw outside a call breaks (each call's state is its own, and a call whose code
 * stopped still ends at its deadline), while exiting surely breaks every call in flight. This is
 * for the server commands only (`mcp`, `http`): a program that uses createRuntime as a library
 * keeps its own policy.
 */

/** How many distinct failures are remembered so each is logged once (a timer failing every second says it once). */
const REMEMBERED = 200;

/** Where a failure comes from: the plugin (and skill) whose file is on its stack, or what the error says. */
function originOf(runtime: Runtime, error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  const skillOfError = error instanceof RuntimeError && typeof error.details?.skill === "string" ? error.details.skill : undefined;
  for (const line of stack.split("\n").slice(1)) {
    for (const plugin of runtime.plugins) {
      const { manifest } = plugin;
      // Config entries and in-code plugins have no folder of their own.
      if (manifest.form === "config" || manifest.form === "memory") continue;
      const under = (file: string) => line.includes(file) || line.includes(pathToFileURL(file).href);
      if (!under(`${manifest.dir}/`)) continue;
      const skill = plugin.skills.find((s) => under(s.file));
      return skill ? `skill '${manifest.prefix}:${skill.name}'` : `plugin '${manifest.prefix}'`;
    }
  }
  return skillOfError ? `skill '${skillOfError}'` : "code outside any call";
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return `a thrown value that is not an Error: ${String(error)}`;
  } catch {
    return "a thrown value that is not an Error and cannot be shown";
  }
}

/** Install the process handlers (once per process): log each stray failure once, masked, and keep serving. */
export function keepServingThroughStrayErrors(runtime: Runtime): void {
  const said = new Map<string, number>();
  const report = (kind: string, error: unknown): void => {
    try {
      // The runtime's logger masks every credential it knows: a plugin's error text may hold one.
      const text = `${kind} from ${originOf(runtime, error)}: ${describe(error)}`;
      const times = (said.get(text) ?? 0) + 1;
      if (times === 1 && said.size >= REMEMBERED) said.delete(said.keys().next().value as string);
      said.set(text, times);
      if (times > 1) return runtime.log.debug(`${text} (again, ${times} times so far)`);
      runtime.log.error(`${text}; it was not part of any call, so no caller is told; the server keeps serving. This is a bug of that code: it must handle its own failures`);
      if (error instanceof Error && error.stack) runtime.log.debug(error.stack);
    } catch {
      // Nothing left to tell it with (stderr closed): a handler that throws would end the process.
    }
  };
  process.on("unhandledRejection", (reason) => report("unhandled rejection", reason));
  process.on("uncaughtException", (error) => report("uncaught exception", error));
}
