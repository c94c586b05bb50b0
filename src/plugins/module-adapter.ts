import path from "node:path";
import { importWithDeadline } from "./import-deadline.js";
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

/** `importTimeoutMs`: the deadline of the module's import (import-deadline.ts). */
export async function loadModuleAdapter(modulePath: string, exportName: string | undefined, options: AdapterOptions, importTimeoutMs?: number): Promise<Adapter> {
  const file = path.resolve(options.pluginDir, modulePath);
  const mod = await importWithDeadline(file, importTimeoutMs);
  const exported = pickExport(mod, exportName);
  let instance: unknown;
  if (isAdapter(exported)) instance = exported;
  else if (isClass(exported)) instance = new exported(options);
  else if (typeof exported === "function") instance = await (exported as (o: AdapterOptions) => unknown)(options);
  else throw new Error(`export '${exportName ?? "default"}' of ${modulePath} is neither a class, a factory nor an adapter object`);
  if (!isAdapter(instance)) {
    throw new Error(`the adapter from ${modulePath} lacks listTools() and call(name, args)`);
  }
  return instance;
}
