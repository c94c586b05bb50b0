import type { Adapter, AdapterHealth, CallContext, ListToolsOptions, ServerDescription, ToolDescriptor } from "../adapters/types.js";
import type { RuntimeError } from "../errors.js";

/**
 * An adapter built on first use. A plugin whose catalog the persistent cache holds needs no adapter
 * to answer tools/list, search or discover, and building one loads its kind's code (for `mcp`, the
 * MCP client package: a third of what a start parsed) or imports the plugin's own module. So the
 * runtime gets this stand-in, which answers what it asks before any call without building:
 *  - `onToolsChanged` listeners and an `adoptProtocol` verdict are kept and handed over once built;
 *  - `serverInfo` says nothing yet, `health` nothing unless the last build failed (then why), and `protocolVerdict` gives back the adopted verdict;
 *  - `close` has nothing to close;
 *  - `discoverContext` exists only when the adapter may have one (a module adapter: unknown until
 *    imported; no built-in kind has one), and answers undefined when the built one has none.
 * `listTools` and `call` build it (once; a failed build is retried by the next use) and go on to
 * it. `onBuilt` gets the real adapter, so the plugin can point at it from then on (pid, stop and a
 * module adapter's own methods are its, not this stand-in's).
 */

export interface DeferredShape {
  /** Whether the built adapter may have `discoverContext` (a module adapter: unknown, so yes). */
  mayHaveDiscoverContext: boolean;
}

export function deferredAdapter(build: () => Promise<Adapter>, onBuilt: (adapter: Adapter) => void, shape: DeferredShape): Adapter {
  let built: Adapter | undefined;
  let building: Promise<Adapter> | undefined;
  const listeners: (() => void)[] = [];
  let verdict: { value: unknown } | undefined;
  /** The last build's failure, until a build succeeds: health says it, so help shows the plugin failing. */
  let failed: AdapterHealth | undefined;

  const ready = (): Promise<Adapter> => {
    if (built) return Promise.resolve(built);
    building ??= build().then(
      (adapter) => {
        built = adapter;
        failed = undefined;
        for (const listener of listeners) adapter.onToolsChanged?.(listener);
        if (verdict) adapter.adoptProtocol?.(verdict.value);
        onBuilt(adapter);
        return adapter;
      },
      (error: unknown) => {
        building = undefined;
        failed = { state: "failing", reason: `its adapter could not be built: ${error instanceof Error ? error.message : String(error)}` };
        throw error;
      },
    );
    return building;
  };

  const stand: Adapter = {
    listTools(options?: ListToolsOptions): Promise<{ tools: ToolDescriptor[] }> {
      return ready().then((adapter) => adapter.listTools(options));
    },
    call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<unknown> {
      return built ? built.call(name, args, ctx) : ready().then((adapter) => adapter.call(name, args, ctx));
    },
    onToolsChanged(listener: () => void): void {
      if (built) built.onToolsChanged?.(listener);
      else listeners.push(listener);
    },
    adoptProtocol(value: unknown): void {
      if (built) built.adoptProtocol?.(value);
      else verdict = { value };
    },
    protocolVerdict(): unknown {
      return built ? built.protocolVerdict?.() : verdict?.value;
    },
    serverInfo(): ServerDescription | undefined {
      return built?.serverInfo?.();
    },
    stillStarting(): RuntimeError | undefined {
      return built?.stillStarting?.();
    },
    health(): AdapterHealth | undefined {
      return built ? built.health?.() : failed;
    },
    async close(): Promise<void> {
      // A build under way is waited for, so what it starts is closed too.
      const adapter = built ?? (building ? await building.catch(() => undefined) : undefined);
      await adapter?.close?.();
    },
  };
  if (shape.mayHaveDiscoverContext) stand.discoverContext = async () => (await ready()).discoverContext?.();
  return stand;
}
