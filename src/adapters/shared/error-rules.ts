import type { AdapterErrorCode } from "./errors.js";
import { AdapterSpecError } from "./errors.js";
import type { RuleOutcomeBlock } from "./spec-schema.js";

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

const PLACEHOLDER = /\{([A-Za-z_][\w.-]*)(?:\|(time))?\}/g;
const WHOLE = /^\{([A-Za-z_][\w.-]*)(?:\|(time))?\}$/;
const SHOWN_MAX = 300;

/** A rule's outcome fields (`code`, `message`, `hint`, `details`), as checked by the kind's rule schema. */
export function parseOutcome(rule: RuleOutcomeBlock): ErrorOutcome {
  const outcome: ErrorOutcome = { code: rule.code ?? "UPSTREAM_ERROR", message: rule.message, details: { ...(rule.details ?? {}) } };
  if (rule.hint !== undefined) outcome.hint = rule.hint;
  return outcome;
}

/** A rule's regular expression field, compiled case-insensitively (a schema cannot say it compiles). */
export function parsePattern(value: string | undefined, field: string): RegExp | undefined {
  if (value === undefined) return undefined;
  try {
    return new RegExp(value, "i");
  } catch (error) {
    throw new AdapterSpecError(field, `is not a valid regular expression: ${(error as Error).message}`);
  }
}

/** A number or a list of numbers (status codes, exit codes). */
export function parseNumberSet(value: number | number[] | undefined): number[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? [...value] : [value];
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

