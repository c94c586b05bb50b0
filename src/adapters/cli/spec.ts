import type { DeclarativeAdapterSpec } from "../../plugins/manifest.js";
import { assertSpec } from "../shared/errors.js";
import { CliSpecError } from "./errors.js";
import { CLI_BLOCK_SCHEMA } from "../block-schema-data.js";
import type { CliBlock } from "./schema.js";
import { parseAllowlist } from "./allowlist.js";
import { parseCliErrorRules, type CliErrorRule } from "./error-rules.js";
import { parseCliTool, type CliTool } from "./tools.js";
import { fieldProblem, type SpecProblem } from "../shared/spec-check.js";

/**
 * The declarative `{ "kind": "cli", ... }` block, checked and normalised:
 * ```json
 * { "kind": "cli", "program": "gh", "allowlist": ["gh"], "env": { "GH_TOKEN": "${GITHUB_TOKEN}" },
 *   "cwd": ".", "timeoutMs": 120000, "maxOutputBytes": 1048576,
 *   "tools": [ { "name": "repo_view", "description": "…", "argv": ["repo", "view", "{owner}/{repo}", "--json", "name"],
 *                "parse": "json", "readonly": true, "optional": { "limit": ["--limit", "{limit}"] } } ] }
 * ```
 * Checked against CliBlockSchema (schema.ts); problems throw CliSpecError naming each field
 * (`adapter.tools[1].argv[2]`).
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

/** The block: its schema first (every problem at once), then each tool's argv template, its agreement with the tool's inputSchema, and unique names (every tool's problems at once). */
export function parseCliSpec(spec: DeclarativeAdapterSpec): CliSpec {
  assertSpec<CliBlock>(CliSpecError, CLI_BLOCK_SCHEMA, spec, "adapter");
  const block: CliBlock = spec;
  if (block.program.includes("\0")) throw new CliSpecError("adapter.program", "must be a non-empty program name or path");
  const allowlist = typeof block.allowlist === "string" ? parseAllowlist(block.allowlist) : block.allowlist ? [...block.allowlist] : undefined;
  // Every tool's problems together, as the rest kind does: an author fixes them in one pass.
  const problems: SpecProblem[] = [];
  const tools = block.tools.map((tool, i) => {
    try {
      return parseCliTool(tool, `adapter.tools[${i}]`);
    } catch (error) {
      if (!(error instanceof CliSpecError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  });
  const seen = new Set<string>();
  block.tools.forEach((tool, i) => {
    if (seen.has(tool.name)) problems.push(fieldProblem(`adapter.tools[${i}].name`, `'${tool.name}' is used by an earlier tool`));
    seen.add(tool.name);
  });
  if (problems.length) throw new CliSpecError(problems);
  return {
    program: block.program,
    allowlist,
    env: { ...(block.env ?? {}) },
    cwd: block.cwd,
    timeoutMs: block.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxOutputBytes: block.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    tools: tools as CliTool[],
    errors: parseCliErrorRules(block.errors),
  };
}
