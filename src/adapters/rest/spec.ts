import type { JsonSchema } from "../types.js";
import { parseRestErrorRules, type RestErrorRule } from "./error-rules.js";
import { RestSpecError } from "./errors.js";
import { parseResultShape, type ResultShape } from "./result-shape.js";
import { checkPathTemplate } from "./url-guard.js";

/**
 * The declarative `{ "kind": "rest", ... }` block, checked and normalised. Problems throw
 * RestSpecError naming the field (`tools[2].path`), which the plugin loader reports.
 */

export type AuthSpec =
  | { type: "bearer"; token: string }
  | { type: "header"; name: string; value: string }
  | { type: "query"; name: string; value: string }
  | {
      type: "login";
      url: string;
      body: Record<string, unknown>;
      tokenPath: string;
      header: string;
      scheme: string;
      /** Statuses after which the token is dropped and the request retried once (default [401]). */
      retryOn: number[];
    };

export interface PaginateSpec {
  style: "link" | "page";
  /** page style: the page-number query parameter (default "page"). */
  param: string;
  perPageParam?: string;
  perPage?: number;
  /** First page number (default 1). */
  start: number;
  /** Dot path of the item array in each page's JSON ("items", "data.results"); default: the body itself. */
  itemsPath?: string;
  /** Most pages fetched in one call (default 10). */
  maxPages: number;
}

export type BodyMapping =
  | { kind: "none" }
  /** Listed arguments become body properties. */
  | { kind: "fields"; fields: { prop: string; arg: string }[] }
  /** Every argument not used by the path, query or headers becomes a body property. */
  | { kind: "rest" }
  /** One argument is the whole body (OpenAPI non-object or clashing bodies). */
  | { kind: "whole"; arg: string; contentType: string };

/** One tool, ready to call. Also what the OpenAPI kind produces. */
export interface RestOperation {
  name: string;
  description?: string;
  method: string;
  /** Checked path template, "/repos/{owner}/{repo}". */
  path: string;
  pathParams: string[];
  query: { param: string; arg: string }[];
  /** Query parameters sent with a fixed value on every call (`"constQuery": {"per_page": "1"}`). */
  constQuery?: Record<string, string>;
  /** When true, every argument not otherwise used goes to the query string. */
  queryRest: boolean;
  headers: { header: string; arg: string }[];
  body: BodyMapping;
  inputSchema: JsonSchema;
  readonly: boolean;
  paginate?: PaginateSpec;
  /** Values sent for arguments the caller left out (`"defaults": {"perPage": 100}`). */
  defaults?: Record<string, unknown>;
  /**
   * JSON body properties sent on every call, over whatever the arguments say (e.g. Ollama's
   * `"stream": false`, which this adapter needs because it reads one JSON answer, not a stream).
   */
  bodyConstants?: Record<string, unknown>;
  /** How the decoded body is trimmed before it is returned (see result-shape.ts). */
  result?: ResultShape;
}

export interface RestConnectionSpec {
  /** May hold `${VAR}`; resolved at call time. */
  baseUrl: string;
  headers: Record<string, string>;
  auth?: AuthSpec;
  timeoutMs: number;
  /** false: writes are sent without an Idempotency-Key header (for a backend that refuses unknown headers). */
  idempotencyKeys?: boolean;
  /** Largest response body read, in bytes; unset: AGENT_TOOLS_MAX_RESPONSE_BYTES or 8 MiB (shared/capped-body.ts). */
  maxResponseBytes?: number;
  /** Rules that turn the service's failures into specific errors (see error-rules.ts). */
  errors?: RestErrorRule[];
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_PAGES = 10;
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const READ_METHODS = new Set(["GET", "HEAD"]);
const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function str(value: unknown, field: string, optional?: false): string;
function str(value: unknown, field: string, optional: true): string | undefined;
function str(value: unknown, field: string, optional = false): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string" || value === "") throw new RestSpecError(field, "must be a non-empty string");
  return value;
}

function stringRecord(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new RestSpecError(field, "must be an object of strings");
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) out[k] = str(v, `${field}.${k}`);
  return out;
}

export function readonlyByDefault(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

function parseStatusList(value: unknown, field: string): number[] | undefined {
  if (value === undefined) return undefined;
  const ok = Array.isArray(value) && value.length > 0 && value.every((v) => Number.isInteger(v) && (v as number) >= 400 && (v as number) <= 499);
  if (!ok) throw new RestSpecError(field, "must be a non-empty array of HTTP 4xx statuses, e.g. [401, 403]");
  return [...(value as number[])];
}

export function parseAuth(value: unknown, field = "auth"): AuthSpec | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new RestSpecError(field, "must be an object with a 'type'");
  switch (value.type) {
    case "bearer":
      return { type: "bearer", token: str(value.token, `${field}.token`) };
    case "header":
    case "query":
      return { type: value.type, name: str(value.name, `${field}.name`), value: str(value.value, `${field}.value`) };
    case "login": {
      if (!isRecord(value.body)) throw new RestSpecError(`${field}.body`, "must be an object (the credentials to POST)");
      return {
        type: "login",
        url: str(value.url, `${field}.url`),
        body: value.body,
        tokenPath: str(value.tokenPath, `${field}.tokenPath`, true) ?? "token",
        header: str(value.header, `${field}.header`, true) ?? "Authorization",
        scheme: typeof value.scheme === "string" ? value.scheme : "Bearer",
        retryOn: parseStatusList(value.retryOn, `${field}.retryOn`) ?? [401],
      };
    }
    default:
      throw new RestSpecError(`${field}.type`, `must be one of bearer, header, query, login (got ${JSON.stringify(value.type)})`);
  }
}

function positiveInt(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new RestSpecError(field, "must be a positive integer");
  return value;
}

export function parsePaginate(value: unknown, field: string): PaginateSpec | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  if (!isRecord(value)) throw new RestSpecError(field, "must be an object with a 'style' (link or page)");
  if (value.style !== "link" && value.style !== "page") throw new RestSpecError(`${field}.style`, `must be "link" or "page" (got ${JSON.stringify(value.style)})`);
  const perPage = positiveInt(value.perPage, `${field}.perPage`);
  const start = value.start === undefined ? 1 : value.start;
  if (typeof start !== "number" || !Number.isInteger(start) || start < 0) throw new RestSpecError(`${field}.start`, "must be a non-negative integer");
  return {
    style: value.style,
    param: str(value.param, `${field}.param`, true) ?? "page",
    perPageParam: str(value.perPageParam, `${field}.perPageParam`, true),
    perPage,
    start,
    itemsPath: str(value.itemsPath, `${field}.itemsPath`, true),
    maxPages: positiveInt(value.maxPages, `${field}.maxPages`) ?? DEFAULT_MAX_PAGES,
  };
}

function nameMapping(value: unknown, field: string): { param: string; arg: string }[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((v, i) => { const n = str(v, `${field}[${i}]`); return { param: n, arg: n }; });
  if (isRecord(value)) return Object.entries(value).map(([param, arg]) => ({ param, arg: str(arg, `${field}.${param}`) }));
  throw new RestSpecError(field, "must be an array of argument names or an object {param: argName}");
}

/** The input schema derived from a tool's path, query and body names (when none is given). */
export function deriveInputSchema(op: Pick<RestOperation, "pathParams" | "query" | "headers" | "body" | "queryRest">): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const name of op.pathParams) properties[name] = { type: "string", description: "path parameter" };
  for (const { param, arg } of op.query) properties[arg] ??= { description: `query parameter '${param}'` };
  for (const { header, arg } of op.headers) properties[arg] ??= { type: "string", description: `header '${header}'` };
  if (op.body.kind === "fields") for (const { prop, arg } of op.body.fields) properties[arg] ??= { description: `body property '${prop}'` };
  if (op.body.kind === "whole") properties[op.body.arg] ??= { description: "request body" };
  const open = op.queryRest || op.body.kind === "rest";
  return { type: "object", properties, required: [...op.pathParams], additionalProperties: open };
}

export function parseTool(value: unknown, field: string): RestOperation {
  if (!isRecord(value)) throw new RestSpecError(field, "must be an object");
  const name = str(value.name, `${field}.name`);
  if (!TOOL_NAME.test(name)) throw new RestSpecError(`${field}.name`, `'${name}' may only contain letters, digits, '_' and '-'`);
  const method = (str(value.method, `${field}.method`, true) ?? "GET").toUpperCase();
  if (!METHODS.has(method)) throw new RestSpecError(`${field}.method`, `'${method}' is not an HTTP method this adapter sends`);
  const path = str(value.path, `${field}.path`);
  let pathParams: string[];
  try {
    pathParams = checkPathTemplate(path, `${field}.path`);
  } catch (error) {
    throw new RestSpecError(`${field}.path`, `is refused: ${(error as Error).message}`);
  }
  const query = nameMapping(value.query, `${field}.query`);
  let body: BodyMapping = { kind: "none" };
  if (value.bodyArg !== undefined && value.body !== undefined) throw new RestSpecError(`${field}.bodyArg`, "cannot be used together with 'body'; pick one");
  if (value.body === "*") body = { kind: "rest" };
  else if (value.body !== undefined) body = { kind: "fields", fields: nameMapping(value.body, `${field}.body`).map(({ param, arg }) => ({ prop: param, arg })) };
  // One argument (an object of arbitrary fields, e.g. a record) is the whole JSON body.
  else if (value.bodyArg !== undefined) body = { kind: "whole", arg: str(value.bodyArg, `${field}.bodyArg`), contentType: "application/json" };
  // Neither query nor body declared: the remaining arguments go where the method puts them.
  let queryRest = false;
  if (value.query === undefined && value.body === undefined && value.bodyArg === undefined) {
    if (["GET", "HEAD", "DELETE", "OPTIONS"].includes(method)) queryRest = true;
    else body = { kind: "rest" };
  }
  if (value.readonly !== undefined && typeof value.readonly !== "boolean") throw new RestSpecError(`${field}.readonly`, "must be true or false");
  if (value.inputSchema !== undefined && !isRecord(value.inputSchema)) throw new RestSpecError(`${field}.inputSchema`, "must be a JSON Schema object");
  if (value.defaults !== undefined && !isRecord(value.defaults)) throw new RestSpecError(`${field}.defaults`, "must be an object {argumentName: value}");
  if (value.bodyConstants !== undefined) {
    if (!isRecord(value.bodyConstants)) throw new RestSpecError(`${field}.bodyConstants`, "must be an object of JSON body properties, e.g. {\"stream\": false}");
    if (method === "GET" || method === "HEAD") throw new RestSpecError(`${field}.bodyConstants`, `cannot be used with ${method}, which sends no body`);
  }
  const op: RestOperation = {
    name,
    description: str(value.description, `${field}.description`, true),
    method,
    path,
    pathParams,
    query,
    constQuery: stringRecord(value.constQuery, `${field}.constQuery`),
    queryRest,
    headers: [],
    body,
    inputSchema: {},
    readonly: (value.readonly as boolean | undefined) ?? readonlyByDefault(method),
    paginate: parsePaginate(value.paginate, `${field}.paginate`),
    ...(isRecord(value.bodyConstants) ? { bodyConstants: value.bodyConstants } : {}),
  };
  if (value.defaults !== undefined) op.defaults = { ...(value.defaults as Record<string, unknown>) };
  const result = parseResultShape(value.result, `${field}.result`);
  if (result) op.result = result;
  op.inputSchema = (value.inputSchema as JsonSchema | undefined) ?? deriveInputSchema(op);
  return op;
}

export function parseConnection(spec: Readonly<Record<string, unknown>>, baseUrl: unknown = spec.baseUrl): RestConnectionSpec {
  const timeoutMs = positiveInt(spec.timeoutMs, "timeoutMs") ?? DEFAULT_TIMEOUT_MS;
  const connection: RestConnectionSpec = { baseUrl: str(baseUrl, "baseUrl"), headers: stringRecord(spec.headers, "headers"), auth: parseAuth(spec.auth), timeoutMs };
  if (spec.idempotencyKeys !== undefined) {
    if (typeof spec.idempotencyKeys !== "boolean") throw new RestSpecError("idempotencyKeys", "must be true or false");
    connection.idempotencyKeys = spec.idempotencyKeys;
  }
  const maxResponseBytes = positiveInt(spec.maxResponseBytes, "maxResponseBytes");
  if (maxResponseBytes !== undefined) connection.maxResponseBytes = maxResponseBytes;
  const errors = parseRestErrorRules(spec.errors);
  if (errors.length) connection.errors = errors;
  return connection;
}

export function parseRestSpec(spec: Readonly<Record<string, unknown>>): { connection: RestConnectionSpec; tools: RestOperation[] } {
  const connection = parseConnection(spec);
  if (!Array.isArray(spec.tools) || spec.tools.length === 0) throw new RestSpecError("tools", "must be a non-empty array of tool definitions");
  const tools = spec.tools.map((t, i) => parseTool(t, `tools[${i}]`));
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.name)) throw new RestSpecError(`tools[${i}].name`, `'${t.name}' is defined twice`);
    seen.add(t.name);
  });
  return { connection, tools };
}
