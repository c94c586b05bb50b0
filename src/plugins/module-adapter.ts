import path from "node:path";
import { DEFAULT_IMPORT_TIMEOUT_MS, importWithDeadline, settleWithin } from "./import-deadline.js";
import { isAdapter, type Adapter, type AdapterOptions } from "../adapters/types.js";

/**
 * A module adapter: a JS module whose export (named by `adapterExport`, else the default export,
 * else the only exported function) is a class, a factory, or an adapter object. Classes are
 * constructed with the AdapterOptions; factories are called with them and may be async.
 */

function isClass(fn: unknown): fn is new (options: AdapterOptions) => unknown {
  if (typeof fn !== "function") return false;
  if (/^class[\s{]/.test(Function.prototype.toString.call(fn))) return true;
  const proto = (fn as { prototype?: Record<string, unknown> }).prototype;
  return !!proto && (typeof proto.listTools === "function" || typeof proto.call === "function");
}

function pickExport(mod: Record<string, unknown>, wanted: string | undefined): unknown {
  if (wanted) {
    if (!(wanted in mod)) {
      const available = Object.keys(mod).join(", ") || "none";
      throw new Error(`adapterExport '${wanted}' is not exported (exports: ${available})`);
    }
    return mod[wanted];
  }
  if (mod.default !== undefined) return mod.default;
  for (const name of ["createAdapter", "Adapter"]) if (mod[name] !== undefined) return mod[name];
  const candidates = Object.values(mod).filter((v) => typeof v === "function" || isAdapter(v));
  if (candidates.length === 1) return candidates[0];
  throw new Error("exports no default adapter; name the class or factory in `adapterExport`");
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return !!value && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

/**
 * `importTimeoutMs`: the deadline of the module's import (import-deadline.ts), and as well of the
 * promise its factory (or a constructor) returns: one that never settles is a load failure then,
 * not a start that hangs (or a process that exits 0 with nothing said once nothing else waits).
 */
export async function loadModuleAdapter(
  modulePath: string,
  exportName: string | undefined,
  options: AdapterOptions,
  importTimeoutMs: number = DEFAULT_IMPORT_TIMEOUT_MS,
): Promise<Adapter> {
  const file = path.resolve(options.pluginDir, modulePath);
  const mod = await importWithDeadline(file, importTimeoutMs);
  const exported = pickExport(mod, exportName);
  const exportLabel = `export '${exportName ?? exportedName(mod, exported)}' of ${modulePath}`;
  let instance: unknown;
  if (isAdapter(exported)) instance = exported;
  else if (isClass(exported)) instance = new exported(options);
  else if (typeof exported === "function") instance = (exported as (o: AdapterOptions) => unknown)(options);
  else throw new Error(`${exportLabel} is neither a class, a factory nor an adapter object`);
  if (!isAdapter(instance) && isThenable(instance)) {
    instance = await settleWithin(instance, importTimeoutMs, () => new FactoryTimeoutError(exportLabel, importTimeoutMs));
  }
  if (!isAdapter(instance)) {
    throw new Error(`the adapter from ${modulePath} lacks listTools() and call(name, args)`);
  }
  return instance;
}

/** The name the picked export has in the module ("default" when it is the default export). */
function exportedName(mod: Record<string, unknown>, exported: unknown): string {
  if (mod.default === exported) return "default";
  return Object.keys(mod).find((key) => mod[key] === exported) ?? "default";
}

export class FactoryTimeoutError extends Error {
  constructor(exportLabel: string, timeoutMs: number) {
    super(
      `${exportLabel} returned a promise that did not settle within ${timeoutMs} ms; ` +
        "make the factory resolve with the adapter (or reject with why it cannot) promptly, and start slow work (a connection) on the adapter's first listTools or call, or raise AGENT_TOOLS_IMPORT_TIMEOUT_MS",
    );
    this.name = "FactoryTimeoutError";
  }
}
