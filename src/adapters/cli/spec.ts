import type { DeclarativeAdapterSpec } from "../../plugins/manifest.js";
import { CliSpecError } from "./errors.js";
import { parseAllowlist } from "./allowlist.js";
import { parseCliErrorRules, type CliErrorRule } from "./error-rules.js";
import { parseCliTool, type CliTool } from "./tools.js";

/**
 * The declarative `{ "kind": "cli", ... }` block, checked and normalised:
 * ```json
 * { "kind": "cli", "program": "gh", "allowlist": ["gh"], "env": { "GH_TOKEN": "${GITHUB_TOKEN}" },
 *   "cwd": ".", "timeoutMs": 120000, "maxOutputBytes": 1048576,
 *   "tools": [ { "name": "repo_view", "description": "…", "argv": ["repo", "view", "{owner}/{repo}", "--json", "name"],
 *                "parse": "json", "readonly": true, "optional": { "limit": ["--limit", "{limit}"] } } ] }
 * ```
 * Problems throw CliSpecError naming the field (`tools[1].argv[2]`).
 */

export interface CliSpec {
  program: string;
  /** undefined when the block has no `allowlist` (only AGENT_CLI_ALLOWLIST can admit the program). */
  allowlist: string[] | undefined;
  /** Declared child variables; values may hold `${VAR}`. */
  env: Record<string, string>;
  /** May hold `${VAR}`; relative to the plugin folder. */
  cwd: string | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  tools: CliTool[];
  /** Rules that turn failed runs into specific errors (see error-rules.ts). */
  errors: CliErrorRule[];
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

function positiveInt(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new CliSpecError(field, "must be a positive integer");
  return value;
}

export function parseCliSpec(spec: DeclarativeAdapterSpec): CliSpec {
  const program = spec.program;
  if (typeof program !== "string" || program.trim() === "" || program.includes("\0")) throw new CliSpecError("adapter.program", "must be a non-empty program name or path");

  let allowlist: string[] | undefined;
  if (typeof spec.allowlist === "string") allowlist = parseAllowlist(spec.allowlist);
  else if (Array.isArray(spec.allowlist)) {
    allowlist = spec.allowlist.map((entry, i) => {
      if (typeof entry !== "string" || entry === "") throw new CliSpecError(`adapter.allowlist[${i}]`, "must be a non-empty string");
      return entry;
    });
  } else if (spec.allowlist !== undefined) throw new CliSpecError("adapter.allowlist", "must be an array of program names or paths");

  const env: Record<string, string> = {};
  if (spec.env !== undefined) {
    if (spec.env === null || typeof spec.env !== "object" || Array.isArray(spec.env)) throw new CliSpecError("adapter.env", "must be an object of strings");
    for (const [name, value] of Object.entries(spec.env as Record<string, unknown>)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliSpecError(`adapter.env.${name}`, "is not a valid variable name");
      if (typeof value !== "string") throw new CliSpecError(`adapter.env.${name}`, "must be a string");
      env[name] = value;
    }
  }

  if (spec.cwd !== undefined && (typeof spec.cwd !== "string" || spec.cwd === "")) throw new CliSpecError("adapter.cwd", "must be a non-empty path");

  if (!Array.isArray(spec.tools) || spec.tools.length === 0) throw new CliSpecError("adapter.tools", "must be a non-empty array of tools");
  const tools = spec.tools.map((tool, i) => parseCliTool(tool, `adapter.tools[${i}]`));
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (seen.has(tool.name)) throw new CliSpecError(`adapter.tools[${i}].name`, `'${tool.name}' is used by an earlier tool`);
    seen.add(tool.name);
  });

  return {
    program,
    allowlist,
    env,
    cwd: spec.cwd as string | undefined,
    timeoutMs: positiveInt(spec.timeoutMs, "adapter.timeoutMs", DEFAULT_TIMEOUT_MS),
    maxOutputBytes: positiveInt(spec.maxOutputBytes, "adapter.maxOutputBytes", DEFAULT_MAX_OUTPUT_BYTES),
    tools,
    errors: parseCliErrorRules(spec.errors),
  };
}
