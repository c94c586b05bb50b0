import type { Adapter, ToolDescriptor } from "../adapters/types.js";
import { AdapterSpecError } from "../adapters/shared/errors.js";
import { cliRunnerFromEnv } from "../adapters/cli/runner.js";
import { mcpClientFromEnv, stdioMcpClientFromEnv } from "../adapters/mcp/from-env.js";
import { restRequesterFromEnv } from "../adapters/rest/requester.js";
import { checkAgainstSchema } from "../json-schema.js";
import { fromThrown, HINTS, RuntimeError } from "../runtime/errors.js";
import { capResult, unwrapResult } from "../runtime/result.js";
import { createToolIndex } from "../runtime/search/index.js";
import { closestNames } from "../runtime/similarity.js";
import { parseArguments } from "./argv.js";
import { jsonOutput, output, usageError, type CommandOutput } from "./command.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import type { ModuleCommand, ModuleOutputHelpers } from "./module-contract.js";

/**
 * What a text module gets in `host.lib`: the runtime's env-driven clients (so a module holds
 * no client code of its own) and `mcpToolCommands`, the search/describe/call trio the three MCP
 * modules share.
 */

const MAX_RESULT_CHARS = 100_000;

export const outputHelpers: ModuleOutputHelpers = {
  text: (stdout, exitCode = EXIT.OK) => output(stdout, exitCode),
  json: (value, exitCode = EXIT.OK) => jsonOutput(value, exitCode),
  usage: (command, message, usage) => usageError(command, message, usage),
  confirmRequired(command, what) {
    const error = new RuntimeError("CONFIRM_REQUIRED", `${what} changes data and needs --confirm`);
    return jsonOutput({ ok: false, error: error.toPayload() }, EXIT.CONFIRM_REQUIRED, `${command}: CONFIRM_REQUIRED: ${what} changes data; add --confirm to run it\n`);
  },
  error(command, thrown) {
    const error = thrown instanceof AdapterSpecError ? new RuntimeError("NOT_CONFIGURED", thrown.message) : fromThrown(thrown);
    const payload = error.toPayload();
    return jsonOutput({ ok: false, error: payload }, exitCodeFor(error.code) || EXIT.FAILED, `${command}: ${error.code}: ${error.message}\n`);
  },
};

function oneLine(text: string | undefined, max = 160): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function params(tool: ToolDescriptor): string {
  const schema = tool.inputSchema ?? {};
  const props = schema.properties && typeof schema.properties === "object" ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return props.map((p) => (required.has(p) ? `${p}*` : p)).join(", ");
}

export interface McpToolCommandsOptions {
  /** Command names are `<prefix>-search`, `<prefix>-describe`, `<prefix>-call`. */
  prefix: string;
  /** Who answers, for messages ("the MCP server at AGENT_MCP_URL"). */
  label: string;
  /** The client, created on first use (and then kept); throws when not configured. */
  client: () => Adapter;
  /** Whether a call of this tool needs --confirm. */
  needsConfirm: (tool: ToolDescriptor) => boolean;
  /** The rule, said in status and discover answers. */
  confirmRule: string;
}

export function mcpToolCommands(options: McpToolCommandsOptions): ModuleCommand[] {
  const { prefix, label } = options;
  const out = outputHelpers;
  const searchName = `${prefix}-search`;
  const describeName = `${prefix}-describe`;
  const callName = `${prefix}-call`;
  const searchUsage = `${searchName} [QUERY…] [--limit N]`;
  const describeUsage = `${describeName} TOOL`;
  const callUsage = `${callName} [--confirm] TOOL [JSON | --name value …]`;

  async function tools(): Promise<ToolDescriptor[]> {
    return (await options.client().listTools()).tools;
  }

  async function findTool(command: string, name: string): Promise<ToolDescriptor | CommandOutput> {
    const all = await tools();
    const tool = all.find((t) => t.name === name);
    if (tool) return tool;
    const suggestions = closestNames(name, all.map((t) => t.name));
    const error = new RuntimeError("UNKNOWN_TOOL", `${label} has no tool '${name}'${suggestions.length ? `; did you mean ${suggestions.map((s) => `'${s}'`).join(" or ")}?` : ""}`, { toolName: name, suggestions });
    return jsonOutput({ ok: false, error: error.toPayload() }, EXIT.USAGE, `${command}: UNKNOWN_TOOL: ${error.message}\n`);
  }

  const search: ModuleCommand = {
    name: searchName,
    summary: `search the tools of ${label} by a few words`,
    usage: searchUsage,
    async run(args) {
      const parsed = parseArguments(args);
      if (!parsed.ok) return out.usage(searchName, parsed.message, searchUsage);
      const query = parsed.positionals.join(" ").trim();
      const limit = typeof parsed.args.limit === "number" && parsed.args.limit > 0 ? Math.min(50, Math.floor(parsed.args.limit)) : 10;
      try {
        const all = await tools();
        let chosen: ToolDescriptor[];
        let total: number;
        if (query) {
          const index = createToolIndex();
          index.setPluginDocuments(prefix, all.map((t) => ({ plugin: prefix, kind: "tool", name: t.name, fields: { name: t.name, description: t.description ?? "", params: params(t) } })));
          const found = index.search(query, { limit });
          const byName = new Map(all.map((t) => [t.name, t]));
          chosen = found.hits.flatMap((h) => byName.get(h.name) ?? []);
          total = found.total;
        } else {
          chosen = all.slice(0, limit);
          total = all.length;
        }
        const matches = chosen.map((t) => ({ name: t.name, description: oneLine(t.description), params: params(t), ...(options.needsConfirm(t) ? { confirm: true } : {}) }));
        return out.json({ ok: true, server: label, ...(query ? { query } : {}), shown: matches.length, total, matches, confirm: options.confirmRule, next: `${describeName} TOOL, then ${callName} TOOL '{…}'` });
      } catch (error) {
        return out.error(searchName, error);
      }
    },
  };

  const describe: ModuleCommand = {
    name: describeName,
    summary: `one tool of ${label}: its description and input schema`,
    usage: describeUsage,
    async run(args) {
      const [name, ...extra] = args;
      if (!name || extra.length) return out.usage(describeName, name ? `unexpected word '${extra[0]}'` : "name the tool", describeUsage);
      try {
        const found = await findTool(describeName, name);
        if (!("name" in found)) return found;
        return out.json({ ok: true, server: label, tool: { name: found.name, description: found.description ?? "", inputSchema: found.inputSchema, ...(found.annotations ? { annotations: found.annotations } : {}) }, confirm: options.needsConfirm(found) });
      } catch (error) {
        return out.error(describeName, error);
      }
    },
  };

  const call: ModuleCommand = {
    name: callName,
    summary: `call one tool of ${label} (${options.confirmRule})`,
    usage: callUsage,
    async run(args, io) {
      const [first, ...restWords] = args.filter((a) => a !== "--confirm");
      const confirm = args.includes("--confirm");
      if (!first || first.startsWith("--")) return out.usage(callName, "name the tool to call", callUsage);
      const parsed = parseArguments(restWords, io.stdin);
      if (!parsed.ok) return out.usage(callName, parsed.message, callUsage);
      if (parsed.positionals.length) return out.usage(callName, `unexpected word '${parsed.positionals[0]}': pass arguments as one JSON object or as --name value`, callUsage);
      try {
        const found = await findTool(callName, first);
        if (!("name" in found)) return found;
        const checked = checkAgainstSchema(found.inputSchema ?? {}, parsed.args);
        if (checked.ok === false) {
          const error = new RuntimeError("ARG_VALIDATION_FAILED", `arguments for '${found.name}' are invalid: ${checked.violations.map((v) => v.message).join("; ")}`, {
            tool: found.name,
            errors: checked.violations.map(({ path, message }) => ({ path, message })),
            schema: found.inputSchema,
          });
          return jsonOutput({ ok: false, error: error.toPayload() }, EXIT.USAGE, `${callName}: ARG_VALIDATION_FAILED: ${error.message}\n`);
        }
        if (options.needsConfirm(found) && !confirm) return out.confirmRequired(callName, `'${found.name}'`);
        const raw = await options.client().call(found.name, parsed.args, {
          signal: io.signal ?? new AbortController().signal,
          sessionId: "text-layer",
          log: { debug() {}, info() {}, warn() {}, error() {} },
        });
        const { result, truncated } = capResult(unwrapResult(raw), MAX_RESULT_CHARS);
        return out.json({ ok: true, server: label, toolName: found.name, result, ...(truncated ? { truncated } : {}) });
      } catch (error) {
        return out.error(callName, error);
      }
    },
  };
  return [search, describe, call];
}

export const moduleLib = {
  mcpClientFromEnv,
  stdioMcpClientFromEnv,
  restRequesterFromEnv,
  cliRunnerFromEnv,
  mcpToolCommands,
  parseArguments,
  hints: HINTS,
};

export type ModuleLib = typeof moduleLib;
