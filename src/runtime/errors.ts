/**
 * The one error type the runtime emits. Every failure a model can see has a stable `code`, a
 * message that names the field or value at fault, and a `hint` saying what to do next. Errors are
 * turned into tool results in one place (the facade), never thrown across the MCP boundary.
 */

export const ERROR_CODES = [
  "MISSING_TOOL_NAME",
  "UNKNOWN_TOOL",
  "ARG_VALIDATION_FAILED",
  "CONFIRM_REQUIRED",
  "UNKNOWN_SKILL",
  "UNKNOWN_FACADE_TOOL",
  "UNKNOWN_PLUGIN",
  "EMPTY_COMMAND",
  "NOT_CONFIGURED",
  "UPSTREAM_ERROR",
  "UPSTREAM_TIMEOUT",
  "RESULT_TOO_LARGE",
  "LOOP_DETECTED",
  "FORBIDDEN",
  "WORKSPACE_INVALID",
  "WORKSPACE_EXPIRED",
  "WORKSPACE_LOST",
  "CONFIRM_DECLINED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Recipes a model can follow to correct its next call. Kept equal to ERROR_CODES by a test. */
export const HINTS: Readonly<Record<ErrorCode, string>> = {
  MISSING_TOOL_NAME:
    "Pass the tool to run in `toolName`, e.g. {\"toolName\":\"list_issues\",\"arguments\":{...}}. Use the plugin's _discover tool to find names.",
  UNKNOWN_TOOL:
    "Use one of the names in `details.suggestions`, or call the plugin's _discover tool with a few words of what you need.",
  ARG_VALIDATION_FAILED:
    "Fix every argument listed in `details.errors` (path and reason) and call again; `details.schema` is the tool's input schema.",
  CONFIRM_REQUIRED:
    "This tool changes data. If the user asked for this change, call again with the same arguments and `confirm: true`.",
  UNKNOWN_SKILL:
    "Use one of the skills in `details.skills`, or call the plugin's _discover tool to see each skill's arguments.",
  UNKNOWN_FACADE_TOOL:
    "Nothing was run. Call one of the tools in `details.tools` (the nearest real names); agent_tools_help lists every plugin.",
  UNKNOWN_PLUGIN:
    "Nothing was run. Name one of the plugins in `details.plugins` in `plugin`; agent_tools_help lists every plugin.",
  EMPTY_COMMAND: "Send a non-empty `command`, e.g. \"status\" or \"list\".",
  NOT_CONFIGURED:
    "Set what `details.missing` lists in the environment of the agent-tools server (not in tool arguments), then restart it.",
  UPSTREAM_ERROR:
    "The service behind this plugin failed. Read `message`; fix the arguments if it names one, otherwise try a different tool or report the failure to the user.",
  UPSTREAM_TIMEOUT:
    "The service did not answer in time. Retry once with a narrower request (fewer items, a filter); if it times out again, tell the user.",
  RESULT_TOO_LARGE:
    "The service's answer was larger than the runtime reads, so nothing more was read. Ask for less: use the tool's filter, search, fields or page-size arguments (e.g. limit, per_page, fields, q) or fetch one page at a time.",
  LOOP_DETECTED:
    "Stop repeating this call: it failed the same way several times. Change the tool or the arguments as the earlier error said, or ask the user.",
  FORBIDDEN:
    "Your identity on this gateway may not do this; `details.allowed` says what it may do. Use an allowed plugin or a read-only tool, or ask the gateway's operator for access.",
  WORKSPACE_INVALID:
    "Call agent_tools_exec without `workspace` to start a new workspace, and pass the `workspace` handle it answers (unchanged) on later calls.",
  WORKSPACE_LOST:
    "The gateway instance that held this workspace stopped, and its files, variables and working folder went with it. Call agent_tools_exec without `workspace` to start a new one and recreate what you need; your other tools, jobs and data are unaffected.",
  WORKSPACE_EXPIRED:
    "Call agent_tools_exec without `workspace` to start a new workspace; files and variables of the old one are gone, so recreate what you need.",
  CONFIRM_DECLINED:
    "The user was asked and did not approve this change; nothing was run. Do not retry it: ask the user what they want instead.",
};

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  hint: string;
  details?: Record<string, unknown>;
}

export class RuntimeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly #hint: string | undefined;

  /** `hint` replaces the code's generic hint when the adapter knows the specific next step. */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, hint?: string) {
    super(message);
    this.name = "RuntimeError";
    this.code = code;
    this.details = details;
    this.#hint = hint;
  }

  get hint(): string {
    return this.#hint ?? HINTS[this.code];
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { code: this.code, message: this.message, hint: this.hint };
    if (this.details !== undefined) payload.details = this.details;
    return payload;
  }
}

export function isRuntimeError(value: unknown): value is RuntimeError {
  return value instanceof RuntimeError;
}

/**
 * Adapters sit below the runtime and do not import it; they signal a known failure by throwing
 * any Error with a string `code` ("UPSTREAM_TIMEOUT", "NOT_CONFIGURED", ...). This turns such an
 * error, or any other thrown value, into a RuntimeError; unknown codes become UPSTREAM_ERROR.
 */
export function fromThrown(value: unknown, context?: string): RuntimeError {
  if (value instanceof RuntimeError) return value;
  const code = value && typeof value === "object" ? (value as { code?: unknown }).code : undefined;
  const known = typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "UPSTREAM_ERROR";
  const message = context ? `${context}: ${describeThrown(value)}` : describeThrown(value);
  const variables = value && typeof value === "object" ? (value as { variables?: unknown }).variables : undefined;
  if (value instanceof Error && value.name === "MissingVariableError" && Array.isArray(variables)) {
    return new RuntimeError("NOT_CONFIGURED", message, { missing: variables, env: variables, bins: [] });
  }
  // An adapter error may carry a specific hint and details (from a plugin's `errors` rules).
  const carried = value && typeof value === "object" ? (value as { hint?: unknown; details?: unknown }) : {};
  const hint = typeof carried.hint === "string" && carried.hint.trim() ? carried.hint : undefined;
  const details = carried.details && typeof carried.details === "object" && !Array.isArray(carried.details) ? (carried.details as Record<string, unknown>) : undefined;
  return new RuntimeError(known, message, details, hint);
}

/** Any thrown value as a readable one-line message. */
export function describeThrown(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
