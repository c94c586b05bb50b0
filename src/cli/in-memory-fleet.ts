import path from "node:path";
import type { Adapter, ToolDescriptor } from "../adapters/types.js";
import type { DeclarativeAdapterFactory } from "../plugins/loader.js";
import type { PluginManifest } from "../plugins/manifest.js";
import type { DatasetTool } from "./retrieval-data.js";

/**
 * A fleet made from a tool catalog file: one in-memory plugin per `server`, each serving its tools
 * through an adapter of kind "in-memory" (calls answer with what they were sent). search-bench and
 * `tokens --tools` load it into a real runtime, so they run the same code as the MCP facade.
 */

export const IN_MEMORY_KIND = "in-memory";

/** A server label as a valid, unique plugin prefix ("Chemical Engineering/Forensic" → "chemical-engineering-forensic"). */
function prefixFor(server: string, taken: Set<string>): string {
  const base = (server.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "catalog").replace(/^([^a-z])/, "p$1").slice(0, 28);
  let prefix = base;
  for (let n = 2; taken.has(prefix); n++) prefix = `${base.slice(0, 28 - String(n).length - 1)}-${n}`;
  taken.add(prefix);
  return prefix;
}

export function inMemoryManifests(tools: readonly DatasetTool[], origin: string): PluginManifest[] {
  const byServer = new Map<string, ToolDescriptor[]>();
  for (const { server, ...tool } of tools) {
    const list = byServer.get(server) ?? [];
    list.push(tool);
    byServer.set(server, list);
  }
  const taken = new Set<string>();
  return [...byServer].map(([server, serverTools]) => ({
    file: origin,
    dir: path.dirname(origin),
    form: "config" as const,
    name: server,
    description: server,
    prefix: prefixFor(server, taken),
    adapter: { kind: IN_MEMORY_KIND, tools: serverTools },
    readonlyTools: [],
    skills: [],
    requireConfirm: false,
    requires: { env: [], bins: [] },
    raw: {},
  }));
}

export const inMemoryAdapterKind: DeclarativeAdapterFactory = (spec): Adapter => {
  const tools = spec.tools as ToolDescriptor[];
  return {
    listTools: async () => ({ tools }),
    call: async (name, args) => ({ called: name, arguments: args }),
  };
};
