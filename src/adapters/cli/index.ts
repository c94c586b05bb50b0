import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import { createRedactor } from "../shared/redact.js";
import { createCliAdapterFromSpec } from "./adapter.js";
import { parseCliSpec } from "./spec.js";

/**
 * The `cli` adapter kind: a local program (gh, git, kubectl, …) behind declared tools.
 * ```json
 * { "kind": "cli", "program": "gh", "allowlist": ["gh"], "env": { "GH_TOKEN": "${GITHUB_TOKEN}" },
 *   "tools": [ { "name": "repo_view", "argv": ["repo", "view", "{owner}/{repo}", "--json", "name,description"],
 *                "parse": "json", "readonly": true, "optional": { "limit": ["--limit", "{limit}"] } } ] }
 * ```
 * spec.ts: the block's fields; allowlist.ts: which programs may run (adapter.allowlist or
 * $AGENT_CLI_ALLOWLIST); template.ts: argv templating and option-injection refusal;
 * child-env.ts: the minimal child environment; process.ts: running without a shell, timeouts
 * and output caps; result.ts: the result shape. runner.ts is the text layer's library.
 */
export const createCliAdapter: DeclarativeAdapterFactory = (spec, options) => {
  const parsed = parseCliSpec(spec);
  return createCliAdapterFromSpec(parsed, { env: options.env, log: options.log, baseDir: options.pluginDir, redactor: options.redactor ?? createRedactor() });
};

export { createCliAdapterFromSpec, type CliAdapterOptions } from "./adapter.js";
export { ALLOWLIST_VARIABLE, allowlistAdmits, parseAllowlist, resolveAllowedProgram, type ResolveOptions } from "./allowlist.js";
export { BASE_VARIABLES, baseEnv, childEnv } from "./child-env.js";
export { applyCliErrorRules, parseCliErrorRules, type CliErrorRule } from "./error-rules.js";
export { CliError, CliSpecError, type CliErrorCode, type CliErrorDetails } from "./errors.js";
export { DEFAULT_KILL_GRACE_MS, runProcess, trimPartialUtf8, type ProcessOptions, type ProcessResult } from "./process.js";
export { exitError, shapeResult, type CliResult } from "./result.js";
export { cliRunnerFromEnv, type CliRunOptions, type CliRunner } from "./runner.js";
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, parseCliSpec, type CliSpec } from "./spec.js";
export { deriveInputSchema, describeCliTool, parseCliTool, type CliTool } from "./tools.js";
export { parseArgvTemplate, renderArgv, scalarText, type ArgvTemplate, type OptionalGroup, type TemplateItem, type TemplatePart } from "./template.js";
