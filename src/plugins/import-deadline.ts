import { pathToFileURL } from "node:url";
import { positiveMs } from "../positive-int.js";
import { insideRuntimePackage } from "../paths.js";

/**
 * Plugin code (a skill file, a module adapter) is imported with a deadline. A module whose
 * top-level code never finishes (an `await` on a promise that never settles, or a long wait) would
 * otherwise stall the whole start: the server would not answer `initialize`, and when nothing else
 * keeps Node's loop alive, `validate`, `status` and the server itself would exit 0 having printed
 * nothing. Past the deadline the file is reported like one that fails to import, and the rest loads.
 *
 * A module adapter's factory (or a constructor that returns a promise) has the same deadline for
 * the same reason: a factory whose promise never settles would stall the start just as well.
 *
 * The import itself cannot be cancelled: the module stays pending in the background. The timer is
 * not unref'd on purpose: it is what keeps the loop alive until the file is reported.
 */

/** Default deadline of one plugin code import; AGENT_TOOLS_IMPORT_TIMEOUT_MS overrides it. */
export const DEFAULT_IMPORT_TIMEOUT_MS = 10_000;

/** The deadline this host asks for: AGENT_TOOLS_IMPORT_TIMEOUT_MS when a positive integer a timer can wait (positiveMs), else the default. */
export function importTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  return positiveMs(env.AGENT_TOOLS_IMPORT_TIMEOUT_MS) ?? DEFAULT_IMPORT_TIMEOUT_MS;
}

export class ImportTimeoutError extends Error {
  readonly file: string;
  /** The message does not repeat the file: every report of it names the file already. */
  constructor(file: string, timeoutMs: number) {
    super(
      `its import did not finish within ${timeoutMs} ms (its top-level code waits on something that does not come); ` +
        "make the module's top level finish promptly (start slow work in its functions), or raise AGENT_TOOLS_IMPORT_TIMEOUT_MS",
    );
    this.name = "ImportTimeoutError";
    this.file = file;
  }
}

/**
 * `promise`, or the error `onTimeout` makes when it has not settled within `timeoutMs`. Shared by
 * every wait on plugin code that might never end: an import, and a module adapter's factory.
 */
export async function settleWithin<T>(promise: PromiseLike<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** `import(file)`, failing with ImportTimeoutError when it has not finished within `timeoutMs`. */
export function importWithDeadline(file: string, timeoutMs: number = DEFAULT_IMPORT_TIMEOUT_MS): Promise<Record<string, unknown>> {
  // Every import of plugin code comes here: the one place the kit is made importable by it. Its
  // module is loaded only for a file outside the package (the bundled plugins' starts skip it).
  const url = pathToFileURL(file).href;
  const imported = insideRuntimePackage(file) ? import(url) : import("./kit-resolution.js").then((kit) => (kit.makeKitResolvableFor(file), import(url)));
  return settleWithin(imported as Promise<Record<string, unknown>>, timeoutMs, () => new ImportTimeoutError(file, timeoutMs));
}
