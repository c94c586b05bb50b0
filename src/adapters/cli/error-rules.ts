import { parseNumberSet, parseOutcome, parsePattern, renderDetails, renderTemplate, type ErrorOutcome } from "../shared/error-rules.js";
import { assertSpec } from "../shared/errors.js";
import type { Redactor } from "../shared/redact.js";
import { CliError, CliSpecError } from "./errors.js";
import { CLI_ERROR_RULES_SCHEMA } from "../block-schema-data.js";
import type { CliErrorRuleBlock } from "./schema.js";
import type { ProcessResult } from "./process.js";
import { masked, tail } from "./result.js";

/**
 * The cli block's `errors`: rules that turn a failed run (non-zero exit) into a specific error.
 * The first rule that matches wins; no match keeps the generic "exited with code n; stderr: …".
 * ```json
 * "errors": [
 *   { "exitCode": 4, "message": "gh is not logged in", "hint": "Run `gh auth login` on the host." },
 *   { "stderrMatches": "Could not resolve to a Repository with the name '(?<repo>[^']+)'",
 *     "message": "no repository {match.repo}", "details": { "repository": "{match.repo}" } }
 * ]
 * ```
 * Matching: `exitCode` (one or a list) and/or `stderrMatches` (a case-insensitive regular
 * expression over stderr); a rule needs at least one. Placeholders: `{exitCode}`, `{stderr}` (its
 * last 1000 characters), `{tool}`, `{match.<group>}` (named groups of stderrMatches),
 * `{args.<name>}` (the call's arguments).
 */

export interface CliErrorRule extends ErrorOutcome {
  exitCodes?: number[];
  stderrMatches?: RegExp;
}

/** Check the `errors` rules against their schema (every problem at once), then compile them. */
export function parseCliErrorRules(value: unknown, field = "adapter.errors"): CliErrorRule[] {
  if (value === undefined) return [];
  assertSpec<CliErrorRuleBlock[]>(CliSpecError, CLI_ERROR_RULES_SCHEMA, value, field);
  return value.map((rule, i) => {
    const where = `${field}[${i}]`;
    const parsed: CliErrorRule = parseOutcome(rule);
    const exitCodes = parseNumberSet(rule.exitCode);
    const stderrMatches = parsePattern(rule.stderrMatches, `${where}.stderrMatches`);
    if (!exitCodes && !stderrMatches) throw new CliSpecError(where, "needs 'exitCode' or 'stderrMatches' (or both) to say which failures it matches");
    if (exitCodes) parsed.exitCodes = exitCodes;
    if (stderrMatches) parsed.stderrMatches = stderrMatches;
    return parsed;
  });
}

/** The error for a failed run when a rule matches it; undefined otherwise. */
export function applyCliErrorRules(
  rules: readonly CliErrorRule[],
  raw: ProcessResult,
  context: { label: string; tool: string; args: Readonly<Record<string, unknown>>; redactor: Redactor },
): CliError | undefined {
  let groups: Record<string, string> = {};
  const rule = rules.find((r) => {
    if (r.exitCodes && (raw.exitCode === null || !r.exitCodes.includes(raw.exitCode))) return false;
    if (!r.stderrMatches) return true;
    const match = r.stderrMatches.exec(raw.stderr);
    if (!match) return false;
    groups = { ...(match.groups ?? {}) };
    return true;
  });
  if (!rule) return undefined;
  const { redactor } = context;
  const stderr = tail(masked(raw.stderr, raw.stderrTruncated, redactor));
  const lookup = (name: string): unknown => {
    if (name === "exitCode") return raw.exitCode;
    if (name === "stderr") return stderr;
    if (name === "tool") return context.tool;
    if (name.startsWith("match.")) return groups[name.slice(6)];
    if (name.startsWith("args.")) return context.args[name.slice(5)];
    return undefined;
  };
  const how = raw.exitCode !== null ? `exited with code ${raw.exitCode}` : `was ended by signal ${raw.signal ?? "?"}`;
  const details = redactor.redactValue({ exitCode: raw.exitCode, ...renderDetails(rule.details, lookup) });
  const hint = rule.hint === undefined ? undefined : redactor.redact(renderTemplate(rule.hint, lookup));
  return new CliError(rule.code, `${context.label} ${how}: ${redactor.redact(renderTemplate(rule.message, lookup))}`, {
    exitCode: raw.exitCode,
    signal: raw.signal,
    stderr,
    details,
    ...(hint === undefined ? {} : { hint }),
  });
}
