import path from "node:path";
import { AdapterSpecError } from "../adapters/shared/errors.js";
import type { Adapter } from "../adapters/types.js";
import { RuntimeError } from "../errors.js";
import { RUNTIME_ROOT } from "../paths.js";
import { parseManifest } from "../plugins/manifest.js";
import type { Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import { callFromWords } from "./flag-call.js";
import { limitArgument, parseArguments, parseNamedCall } from "./argv.js";
import { callContext, outcomeOutput, payloadOutput, usageError, withNote, type CommandIo } from "./command.js";
import type { ModuleCommand, ModulePlugin, ModulePluginSpec } from "./module-contract.js";
import { SANDBOX_RESULT_CHARS } from "../runtime/truncation-note.js";
import { readSettingsFileSync } from "../bounded-file.js";

/**
 * Text modules that wrap a server (generic-mcp, stdio-mcp, n8n-mcp) do not carry a call path of
 * their own: each makes an in-memory plugin of its client, and its commands are words over the
 * runtime's operations on that plugin — discover, describe, call — so validation, repairs, the
 * gate, the deadline, the loop breaker and the error codes are the facade's, with this session.
 */

/** An adapter made on first use (a module's client reads its settings then, and may throw NOT_CONFIGURED). */
function lazyAdapter(make: () => Adapter): Adapter & { close(): Promise<void> } {
  let made: Adapter | undefined;
  const get = (): Adapter => {
    if (made) return made;
    try {
      made = make();
    } catch (error) {
      // A missing or malformed setting (AGENT_MCP_URL unset) is the host's to fix: NOT_CONFIGURED.
      if (error instanceof AdapterSpecError) throw new RuntimeError("NOT_CONFIGURED", `${error.message} (in the server's environment)`);
      throw error;
    }
    return made;
  };
  return {
    listTools: (options) => get().listTools(options),
    call: (name, args, ctx) => get().call(name, args, ctx),
    async close() {
      await made?.close?.();
    },
  };
}

export function modulePlugin(runtime: Runtime, session: Session, spec: ModulePluginSpec): ModulePlugin {
  const adapter = lazyAdapter(spec.client);
  const plugin = runtime.memoryPlugin({
    prefix: spec.prefix,
    name: spec.name,
    description: spec.description,
    adapter,
    requireConfirm: spec.requireConfirm ?? true,
    readonlyTools: spec.readonlyTools ?? [],
    trustReadOnlyHints: spec.trustReadOnlyHints ?? false,
  });
  const ctx = (io: Pick<CommandIo, "signal" | "confirmer" | "writeLog">) => callContext(io, SANDBOX_RESULT_CHARS);

  function commands(names: { search: string; describe: string; call: string }): ModuleCommand[] {
    const searchUsage = `${names.search} [QUERY…] [--limit N]`;
    const describeUsage = `${names.describe} TOOL`;
    const callUsage = `${names.call} [--confirm] TOOL [JSON | --name value …]`;
    return [
      {
        name: names.search,
        summary: `search the tools of ${spec.name} by a few words`,
        usage: searchUsage,
        async run(args, io) {
          const parsed = parseArguments(args);
          if (!parsed.ok) return usageError(names.search, parsed.message, searchUsage);
          const limit = limitArgument(parsed.args);
          if (!limit.ok) return usageError(names.search, limit.message, searchUsage);
          const query = parsed.positionals.join(" ").trim();
          const request = { ...(query ? { query } : {}), ...(limit.limit !== undefined ? { limit: limit.limit } : {}) };
          const outcome = await runtime.discover(session, plugin, request, ctx(io));
          return payloadOutput(names.search, outcome.payload, outcome.isError);
        },
      },
      {
        name: names.describe,
        summary: `one tool of ${spec.name}: its description and input schema`,
        usage: describeUsage,
        async run(args, io) {
          const [name, ...extra] = args;
          if (!name || extra.length) return usageError(names.describe, name ? `unexpected word '${extra[0]}'` : "name the tool", describeUsage);
          const outcome = await runtime.describe(session, plugin, name, ctx(io));
          return payloadOutput(names.describe, outcome.payload, outcome.isError);
        },
      },
      {
        name: names.call,
        summary: `call one tool of ${spec.name}${spec.requireConfirm === false ? "" : " (tools that change data need --confirm)"}`,
        usage: callUsage,
        async run(args, io) {
          const parsed = parseNamedCall(args, io.stdin, "tool", `name the tool to call (find it with \`${names.search} WORDS\`)`, names.call);
          if (!parsed.ok) return usageError(names.call, parsed.message, callUsage);
          const { outcome, note } = await callFromWords(runtime, session, plugin, parsed, ctx(io));
          return withNote(outcomeOutput(names.call, outcome, note), names.call, parsed.note);
        },
      },
    ];
  }

  return {
    prefix: spec.prefix,
    adapter,
    call: (toolName, args, options = {}) => runtime.call(session, plugin, { toolName, arguments: args, ...(options.confirm ? { confirm: true } : {}) }, ctx({ signal: options.signal })),
    commands,
    close: () => adapter.close(),
  };
}

/**
 * The read-only tools a bundled plugin declares (`plugins/agent-tools-plugin-<name>/plugin.json`):
 * a module that wraps the same service uses that one list instead of a copy.
 */
export function bundledReadonlyTools(name: string): string[] {
  const file = path.join(RUNTIME_ROOT, "plugins", `agent-tools-plugin-${name}`, "plugin.json");
  // Read as every plugin.json is (bounded-file.ts), though this one ships with the runtime.
  return parseManifest(file, JSON.parse(readSettingsFileSync(file)) as unknown).readonlyTools;
}
