import { parseNumberSet, parseOutcome, parsePattern, renderDetails, renderTemplate, type ErrorOutcome } from "../shared/error-rules.js";
import { assertSpec } from "../shared/errors.js";
import { valueAt } from "../shared/json-path.js";
import { RestSpecError } from "./errors.js";
import { REST_ERROR_RULES_SCHEMA } from "../block-schema-data.js";
import type { RestErrorRuleBlock } from "./schema.js";

/**
 * The rest block's `errors`: rules that turn a non-2xx answer into a specific error. The first
 * rule that matches wins; no match keeps the generic "answered HTTP n: <body excerpt>".
 * ```json
 * "errors": [
 *   { "status": [403, 429], "headers": { "x-ratelimit-remaining": "0" },
 *     "message": "rate limit exhausted; it resets at {header.x-ratelimit-reset|time}",
 *     "hint": "Wait until the reset time, then retry.", "details": { "resetAt": "{header.x-ratelimit-reset|time}" } },
 *   { "status": 422, "code": "ARG_VALIDATION_FAILED", "message": "{body.message}", "details": { "errors": "{body.errors}" } }
 * ]
 * ```
 * Matching: `status` (one or a list, required), `headers` (name → exact value, or "*" for present),
 * `bodyMatches` (a case-insensitive regular expression over the body as text). Placeholders:
 * `{status}`, `{method}`, `{path}`, `{body}`, `{body.<dot.path>}`, `{header.<name>}`.
 */

export interface RestErrorRule extends ErrorOutcome {
  status: number[];
  headers: Record<string, string>;
  bodyMatches?: RegExp;
}

export interface FailedExchange {
  status: number;
  method: string;
  path: string;
  headers: Headers;
  data: unknown;
}

/** Check the `errors` rules against their schema (every problem at once), then compile them. */
export function parseRestErrorRules(value: unknown, field = "errors"): RestErrorRule[] {
  if (value === undefined) return [];
  assertSpec<RestErrorRuleBlock[]>(RestSpecError, REST_ERROR_RULES_SCHEMA, value, field);
  return value.map((rule, i) => {
    const headers = Object.fromEntries(Object.entries(rule.headers ?? {}).map(([name, expected]) => [name.toLowerCase(), expected]));
    const parsed: RestErrorRule = { ...parseOutcome(rule), status: parseNumberSet(rule.status) ?? [], headers };
    const pattern = parsePattern(rule.bodyMatches, `${field}[${i}].bodyMatches`);
    if (pattern) parsed.bodyMatches = pattern;
    return parsed;
  });
}

function bodyText(data: unknown): string {
  if (data === null || data === undefined) return "";
  return typeof data === "string" ? data : JSON.stringify(data);
}

function matches(rule: RestErrorRule, failed: FailedExchange): boolean {
  if (!rule.status.includes(failed.status)) return false;
  for (const [name, expected] of Object.entries(rule.headers)) {
    const actual = failed.headers.get(name);
    if (actual === null || (expected !== "*" && actual.trim() !== expected)) return false;
  }
  return !rule.bodyMatches || rule.bodyMatches.test(bodyText(failed.data));
}

export interface AppliedRule {
  code: ErrorOutcome["code"];
  message: string;
  hint?: string;
  details: Record<string, unknown>;
}

/** The first matching rule, rendered; undefined when none matches. */
export function applyRestErrorRules(rules: readonly RestErrorRule[], failed: FailedExchange): AppliedRule | undefined {
  const rule = rules.find((r) => matches(r, failed));
  if (!rule) return undefined;
  const lookup = (name: string): unknown => {
    if (name === "status") return failed.status;
    if (name === "method") return failed.method;
    if (name === "path") return failed.path;
    if (name === "body") return failed.data;
    if (name.startsWith("body.")) return valueAt(failed.data, name.slice(5));
    if (name.startsWith("header.")) return failed.headers.get(name.slice(7)) ?? undefined;
    return undefined;
  };
  const applied: AppliedRule = { code: rule.code, message: renderTemplate(rule.message, lookup), details: renderDetails(rule.details, lookup) };
  if (rule.hint !== undefined) applied.hint = renderTemplate(rule.hint, lookup);
  return applied;
}
