import type { AdapterErrorCode } from "./errors.js";
import { AdapterSpecError } from "./errors.js";

/**
 * `errors` rules of a declarative adapter block: turn a service's failure (an HTTP status and
 * body, a program's exit code and stderr) into an error the model can act on — a code, a message
 * that says what happened, a hint that says what to do, and details. Each kind matches its own
 * facts (rest: status/headers/body; cli: exit code/stderr) and shares the outcome part here.
 *
 * Templates hold `{name}` placeholders looked up by the kind (`{status}`, `{body.message}`,
 * `{header.retry-after}`, `{match.repo}`); `{name|time}` shows epoch seconds as an ISO time.
 * A value that is not text is shown as JSON (cut at 300 characters); a missing one as "".
 * A `details` entry that is exactly one placeholder keeps the value as it is (an array stays an
 * array), and is left out when missing.
 */

export interface ErrorOutcome {
  code: AdapterErrorCode;
  message: string;
  hint?: string;
  details: Record<string, string>;
}

export type Lookup = (name: string) => unknown;

const CODES: readonly AdapterErrorCode[] = ["UPSTREAM_ERROR", "UPSTREAM_TIMEOUT", "NOT_CONFIGURED", "ARG_VALIDATION_FAILED"];
const PLACEHOLDER = /\{([A-Za-z_][\w.-]*)(?:\|(time))?\}/g;
const WHOLE = /^\{([A-Za-z_][\w.-]*)(?:\|(time))?\}$/;
const SHOWN_MAX = 300;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Check a rule's outcome fields (`code`, `message`, `hint`, `details`); `field` names the rule. */
export function parseOutcome(rule: Record<string, unknown>, field: string): ErrorOutcome {
  const code = rule.code ?? "UPSTREAM_ERROR";
  if (typeof code !== "string" || !CODES.includes(code as AdapterErrorCode)) {
    throw new AdapterSpecError(`${field}.code`, `must be one of ${CODES.join(", ")} (got ${JSON.stringify(rule.code)})`);
  }
  if (typeof rule.message !== "string" || rule.message.trim() === "") throw new AdapterSpecError(`${field}.message`, "must be a non-empty string");
  if (rule.hint !== undefined && (typeof rule.hint !== "string" || rule.hint.trim() === "")) throw new AdapterSpecError(`${field}.hint`, "must be a non-empty string");
  const details: Record<string, string> = {};
  if (rule.details !== undefined) {
    if (!isRecord(rule.details)) throw new AdapterSpecError(`${field}.details`, "must be an object of templates");
    for (const [key, value] of Object.entries(rule.details)) {
      if (typeof value !== "string") throw new AdapterSpecError(`${field}.details.${key}`, "must be a string template");
      details[key] = value;
    }
  }
  const outcome: ErrorOutcome = { code: code as AdapterErrorCode, message: rule.message, details };
  if (typeof rule.hint === "string") outcome.hint = rule.hint;
  return outcome;
}

/** A rule's regular expression field, compiled case-insensitively. */
export function parsePattern(value: unknown, field: string): RegExp | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new AdapterSpecError(field, "must be a non-empty regular expression");
  try {
    return new RegExp(value, "i");
  } catch (error) {
    throw new AdapterSpecError(field, `is not a valid regular expression: ${(error as Error).message}`);
  }
}

/** A number or a list of numbers (status codes, exit codes). */
export function parseNumberSet(value: unknown, field: string): number[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((n) => typeof n === "number" && Number.isInteger(n))) throw new AdapterSpecError(field, "must be an integer or a non-empty list of integers");
  return list as number[];
}

/** The `errors` list itself. */
export function ruleList(value: unknown, field: string): Record<string, unknown>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AdapterSpecError(field, "must be an array of rules");
  return value.map((rule, i) => {
    if (!isRecord(rule)) throw new AdapterSpecError(`${field}[${i}]`, "must be an object");
    return rule;
  });
}

function filtered(value: unknown, filter: string | undefined): unknown {
  if (filter === "time" && value !== undefined && value !== null && value !== "") {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) return new Date(seconds * 1000).toISOString();
  }
  return value;
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const json = JSON.stringify(value);
  return json.length > SHOWN_MAX ? `${json.slice(0, SHOWN_MAX - 1)}…` : json;
}

export function renderTemplate(template: string, lookup: Lookup): string {
  return template.replace(PLACEHOLDER, (_, name: string, filter: string | undefined) => shown(filtered(lookup(name), filter))).trim();
}

export function renderDetails(details: Readonly<Record<string, string>>, lookup: Lookup): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, template] of Object.entries(details)) {
    const whole = WHOLE.exec(template);
    if (whole) {
      const value = filtered(lookup(whole[1] ?? ""), whole[2]);
      if (value !== undefined && value !== null && value !== "") out[key] = value;
    } else out[key] = renderTemplate(template, lookup);
  }
  return out;
}

