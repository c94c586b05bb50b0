import { anySignal } from "../../any-signal.js";
import { resolveChildValue } from "../shared/child-variable.js";
import { interpolate, MissingVariableError } from "../shared/env-vars.js";
import { createRedactor, type Redactor } from "../shared/redact.js";
import { toolLookup } from "../shared/tool-lookup.js";
import type { Adapter, CallContext, JsonSchema, Logger } from "../types.js";
import { resolveBin } from "../../plugins/requirements.js";
import { resolveAllowedProgram } from "./allowlist.js";
import { childEnv } from "./child-env.js";
import { applyCliErrorRules } from "./error-rules.js";
import { CliError } from "./errors.js";
import { runProcess } from "./process.js";
import { exitError, shapeResult } from "./result.js";
import type { CliSpec } from "./spec.js";
import { describeCliTool } from "./tools.js";
import { renderArgv, templateArguments, withHostValues, type ArgvTemplate } from "./template.js";
import { uncarriedArgument, uncarriedMessage } from "../shared/carried-arguments.js";
import { brokenMappingAnswer, contradictedMapping } from "../shared/mapping-check.js";
import { workingFolderOf } from "../shared/working-folder.js";

/**
 * An Adapter over a parsed `cli` block. Each call: the program is checked against the allowlists
 * and resolved on PATH (NOT_CONFIGURED otherwise), the template's own `${VAR}`s are resolved from
 * the host (NOT_CONFIGURED naming an unset one), the argv is rendered from the template
 * (ARG_VALIDATION_FAILED naming the argument), the program runs without a shell in a minimal
 * environment, and a non-zero exit throws UPSTREAM_ERROR with the exit code and stderr tail.
 * `close()` kills programs still running.
 */

export interface CliAdapterOptions {
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Base for a relative `cwd` (the plugin folder). */
  baseDir: string;
  redactor?: Redactor;
}

export function createCliAdapterFromSpec(spec: CliSpec, options: CliAdapterOptions): Adapter {
  const redactor = options.redactor ?? createRedactor();
  const toolNamed = toolLookup(spec.tools, (message) => new CliError("UNKNOWN_TOOL", message));
  // `program` (and allowlist entries) may be `${GH_CLI_BIN:-gh}`: the program a host variable
  // names, else the default. Resolved at each call; descriptions show the default name only.
  const shownProgram = resolveBin(spec.program, {}).program || spec.program;
  const tools = spec.tools.map((tool) => describeCliTool(tool, shownProgram));
  const closing = new AbortController();
  const resolveProgram = (): string =>
    hostSetting(() => {
      const program = interpolate(spec.program, options.env, "adapter.program");
      const allowlist = (spec.allowlist ?? []).map((entry, i) => interpolate(entry, options.env, `adapter.allowlist[${i}]`));
      return resolveAllowedProgram(program, { env: options.env, manifest: { allowlist, dir: options.baseDir } });
    });

  try {
    resolveProgram();
  } catch (error) {
    options.log.warn(`cli adapter: ${(error as Error).message}; its tools fail until then`);
  }

  /** The plugin folder by default; `cwd: "@runtime"` the runtime's working folder (working-folder.ts). */
  function workingDir(): string | undefined {
    return hostSetting(() => workingFolderOf(spec.cwd, options.baseDir, (cwd) => interpolate(cwd, options.env, "adapter.cwd")));
  }

  return {
    async listTools() {
      return { tools };
    },

    async call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<unknown> {
      const tool = toolNamed(name);
      refuseUncarried(name, tool.template, args ?? {}, tool.inputSchema);
      const file = resolveProgram();
      // The author's `${VAR}`s in argv are the host's values, masked as an `args` entry's are
      // (resolveChildValue), resolved before the arguments go in: theirs are never resolved.
      const template = hostSetting(() => withHostValues(tool.template, (text, field) => resolveChildValue(text, options.env, field, redactor)));
      const argv = renderArgv(template, args ?? {});
      const env = childEnv(options.env, spec.env, redactor);
      const label = `${shownProgram} (tool '${name}')`;
      const log = ctx?.log ?? options.log;
      log.debug(`cli: running ${file} for tool '${name}'`, { argc: argv.length });
      const signal = ctx?.signal ? anySignal([ctx.signal, closing.signal]) : closing.signal;
      const raw = await runProcess(file, argv, {
        cwd: workingDir(),
        env,
        timeoutMs: tool.timeoutMs ?? spec.timeoutMs,
        maxOutputBytes: spec.maxOutputBytes,
        signal,
        label,
      });
      if (raw.exitCode !== 0) throw applyCliErrorRules(spec.errors, raw, { label, tool: name, args: args ?? {}, redactor }) ?? exitError(raw, label, redactor);
      return shapeResult(raw, tool.parse, spec.maxOutputBytes, redactor, { label, writes: !tool.readonly });
    },

    async close() {
      closing.abort(new CliError("UPSTREAM_ERROR", "the adapter was closed"));
    },
  };
}

/**
 * A setting resolved from the host (`program`, `cwd`, argv's `${VAR}`s): one that reads an unset
 * variable makes the tool NOT_CONFIGURED, naming the variable and the field, as the block's `env`
 * does (child-env.ts).
 */
function hostSetting<T>(resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof MissingVariableError) throw Object.assign(error, { code: "NOT_CONFIGURED" });
    throw error;
  }
}

/**
 * An argument the argv template has no place for is refused before anything runs: the program
 * run without it would lose it while the call seemed to succeed. Validation refuses it first when
 * the tool's schema is closed (carried-arguments.ts); this stands for a schema built from parts.
 */
function refuseUncarried(tool: string, template: ArgvTemplate, args: Readonly<Record<string, unknown>>, schema: JsonSchema): void {
  const carried = templateArguments(template);
  const found = uncarriedArgument(args, carried);
  // One the tool's own schema contradicts (built from parts, so the load could not compare) is the plugin's fault.
  const needed = template.required.map(({ arg, spread }) => ({ arg, slot: `argv placeholder {${arg}${spread ? "..." : ""}}` }));
  const broken = contradictedMapping(schema, args, found?.key, needed);
  if (broken) {
    const { message, hint } = brokenMappingAnswer(tool, broken);
    throw new CliError("NOT_CONFIGURED", message, { hint });
  }
  if (!found) return;
  throw new CliError("ARG_VALIDATION_FAILED", uncarriedMessage(tool, found, carried, "this tool's argv has no place for it, and nothing was run"), {
    argument: found.key,
    details: { argument: found.key, parameters: carried, ...(found.meant ? { suggestion: found.meant } : {}) },
  });
}
