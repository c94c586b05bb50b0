import type { JsonSchema } from "../types.js";
import { assertSpec } from "../shared/errors.js";
import type { SpecProblem } from "../shared/spec-check.js";
import { parseRestErrorRules, type RestErrorRule } from "./error-rules.js";
import { RestSpecError } from "./errors.js";
import { parseResultShape, type ResultShape } from "./result-shape.js";
import { REST_AUTH_SCHEMA, REST_BLOCK_SCHEMA, REST_PAGINATE_SCHEMA, REST_TOOL_SCHEMA } from "../block-schema-data.js";
import type { AuthBlock, PaginateBlock, RestBlock, RestToolBlock } from "./schema.js";
import { HTTP_METHODS } from "./methods.js";
import { checkPathTemplate, checkRawPath } from "./url-guard.js";
import { carriedArguments } from "./request.js";
import { closedToUndeclared } from "../shared/carried-arguments.js";
import { assertGivenSchemaCompiles } from "../shared/given-schema.js";
import { mappingProblems, type ArgumentSlot } from "../shared/mapping-check.js";

/**
 * The declarative `{ "kind": "rest", ... }` block, checked against its schema (schema.ts) and
 * normalised. Problems throw RestSpecError naming each field (`tools[2].path`), which the plugin
 * loader reports at its line and column in plugin.json.
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
  /**
   * page style: dot path of the service's own sign that more pages follow (`has_more`, or a next
   * URL or cursor such as `next`): true or a non-empty value reads on; false, null or "" ends.
   */
  hasMorePath?: string;
  /** page style: dot path of the service's count of all items (`total`): reading ends once that many are read. */
  totalPath?: string;
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
const DEFAULT_MAX_PAGES = 10;
const METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);
const READ_METHODS = new Set(["GET", "HEAD"]);

export function readonlyByDefault(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

export function parseAuth(value: unknown, field = "auth"): AuthSpec | undefined {
  if (value === undefined || value === null) return undefined;
  assertSpec<AuthBlock>(RestSpecError, REST_AUTH_SCHEMA, value, field);
  const auth = value;
  if (auth.type !== "login") return { ...auth };
  // The login is posted under the base URL, with the same guard as a tool's path: a URL that
  // leaves it is the manifest's to fix, said here (and by validate), not at each call.
  try {
    checkRawPath(auth.url, `${field}.url`);
  } catch (error) {
    throw new RestSpecError(`${field}.url`, `is refused: ${(error as Error).message}; write the login's path under adapter.baseUrl (e.g. "/auth/login")`);
  }
  return {
    type: "login",
    url: auth.url,
    body: auth.body,
    tokenPath: auth.tokenPath ?? "token",
    header: auth.header ?? "Authorization",
    scheme: auth.scheme ?? "Bearer",
    retryOn: auth.retryOn ? [...auth.retryOn] : [401],
  };
}

export function parsePaginate(value: unknown, field: string): PaginateSpec | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  assertSpec<PaginateBlock>(RestSpecError, REST_PAGINATE_SCHEMA, value, field);
  const paginate = value;
  return {
    style: paginate.style,
    param: paginate.param ?? "page",
    perPageParam: paginate.perPageParam,
    perPage: paginate.perPage,
    start: paginate.start ?? 1,
    itemsPath: paginate.itemsPath,
    maxPages: paginate.maxPages ?? DEFAULT_MAX_PAGES,
    hasMorePath: paginate.hasMorePath,
    totalPath: paginate.totalPath,
  };
}

function nameMapping(value: string[] | Record<string, string> | undefined): { param: string; arg: string }[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((n) => ({ param: n, arg: n }));
  return Object.entries(value).map(([param, arg]) => ({ param, arg }));
}

/** The input schema derived from a tool's path, query and body names (when none is given). */
export function deriveInputSchema(op: Pick<RestOperation, "pathParams" | "query" | "headers" | "body" | "queryRest">): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  // String or integer: a service's own list answers ids as numbers ("id": 1), and the model passes
  // them on as they came; encodePathValue sends either as its decimal text.
  for (const name of op.pathParams) properties[name] = { type: ["string", "integer"], description: "path parameter" };
  for (const { param, arg } of op.query) properties[arg] ??= { description: `query parameter '${param}'` };
  for (const { header, arg } of op.headers) properties[arg] ??= { type: "string", description: `header '${header}'` };
  if (op.body.kind === "fields") for (const { prop, arg } of op.body.fields) properties[arg] ??= { description: `body property '${prop}'` };
  if (op.body.kind === "whole") properties[op.body.arg] ??= { description: "request body" };
  return { type: "object", properties, required: [...op.pathParams], additionalProperties: carriedArguments(op) === undefined };
}

/** Where a `query` or `body` list or map names `key` (its index in a list): "tools[1].query.q", "tools[2].body[1]". */
function mapField(field: string, mapping: string[] | Record<string, string>, key: string): string {
  return Array.isArray(mapping) ? `${field}[${mapping.indexOf(key)}]` : `${field}.${key}`;
}

/**
 * A rest tool's two name maps, each { wire name: argument } or a list of names that are both: how
 * problems call one of their slots ("query parameter 'q'") and what a map of them maps.
 */
const NAME_MAPS = [
  { key: "query", slot: "query parameter", wire: "query parameter" },
  { key: "body", slot: "body field", wire: "body property" },
] as const;

/** The places a rest tool's request reads arguments from, for the comparison with its inputSchema (mapping-check.ts). */
function requestSlots(tool: RestToolBlock, op: RestOperation, field: string): ArgumentSlot[] {
  const slots: ArgumentSlot[] = op.pathParams.map((arg) => ({
    arg,
    field: `${field}.path`,
    slot: `path placeholder {${arg}}`,
    renamed: (name) => `rename the placeholder to {${name}}`,
    needed: true,
  }));
  for (const { key, slot, wire } of NAME_MAPS) {
    const mapping = tool[key];
    // body "*" carries every argument no other slot reads: no slot of its own (carriesTheRest).
    if (mapping === undefined || mapping === "*") continue;
    for (const { param, arg } of nameMapping(mapping)) {
      slots.push({
        arg,
        field: mapField(`${field}.${key}`, mapping, param),
        slot: `${slot} '${param}'`,
        // The map reads { wireName: argument }: the argument is the value side.
        renamed: (name) => `read it from '${name}' (${key}: { "${param}": "${name}" }, a map of ${wire} to argument)`,
        needed: false,
      });
    }
  }
  if (op.body.kind === "whole") {
    slots.push({ arg: op.body.arg, field: `${field}.bodyArg`, slot: `bodyArg '${op.body.arg}'`, renamed: (name) => `set bodyArg to '${name}'`, needed: false });
  }
  return slots;
}

/**
 * One tool: its shape is RestToolSchema's (every problem at once); what spans fields or needs
 * code is checked here — the method, the path template, body vs bodyArg, a body on a GET.
 */
export function parseTool(value: unknown, field: string): RestOperation {
  assertSpec<RestToolBlock>(RestSpecError, REST_TOOL_SCHEMA, value, field);
  const tool: RestToolBlock = value;
  const method = (tool.method ?? "GET").toUpperCase();
  if (!METHODS.has(method)) throw new RestSpecError(`${field}.method`, `'${method}' is not an HTTP method this adapter sends (${[...METHODS].join(", ")})`);
  let pathParams: string[];
  try {
    pathParams = checkPathTemplate(tool.path, `${field}.path`);
  } catch (error) {
    throw new RestSpecError(`${field}.path`, `is refused: ${(error as Error).message}`);
  }
  const query = nameMapping(tool.query);
  let body: BodyMapping = { kind: "none" };
  if (tool.bodyArg !== undefined && tool.body !== undefined) throw new RestSpecError(`${field}.bodyArg`, "cannot be used together with 'body'; pick one");
  if (tool.body === "*") body = { kind: "rest" };
  else if (tool.body !== undefined) body = { kind: "fields", fields: nameMapping(tool.body).map(({ param, arg }) => ({ prop: param, arg })) };
  // One argument (an object of arbitrary fields, e.g. a record) is the whole JSON body.
  else if (tool.bodyArg !== undefined) body = { kind: "whole", arg: tool.bodyArg, contentType: "application/json" };
  // Neither query nor body declared: the remaining arguments go where the method puts them.
  let queryRest = false;
  if (tool.query === undefined && tool.body === undefined && tool.bodyArg === undefined) {
    if (["GET", "HEAD", "DELETE", "OPTIONS"].includes(method)) queryRest = true;
    else body = { kind: "rest" };
  }
  if (tool.bodyConstants !== undefined && (method === "GET" || method === "HEAD")) throw new RestSpecError(`${field}.bodyConstants`, `cannot be used with ${method}, which sends no body`);
  const op: RestOperation = {
    name: tool.name,
    description: tool.description,
    method,
    path: tool.path,
    pathParams,
    query,
    constQuery: { ...(tool.constQuery ?? {}) },
    queryRest,
    headers: [],
    body,
    inputSchema: {},
    readonly: tool.readonly ?? readonlyByDefault(method),
    paginate: parsePaginate(tool.paginate, `${field}.paginate`),
    ...(tool.bodyConstants ? { bodyConstants: tool.bodyConstants } : {}),
  };
  if (tool.defaults !== undefined) op.defaults = { ...tool.defaults };
  const result = parseResultShape(tool.result, `${field}.result`);
  if (result) op.result = result;
  // A given schema is closed when the tool has no place for arguments it does not map (carried-arguments.ts).
  const given = tool.inputSchema as JsonSchema | undefined;
  assertGivenSchemaCompiles(RestSpecError, given, field);
  // The schema compiles before its names are compared with the mapping's.
  const mismatches = mappingProblems(given, requestSlots(tool, op, field), {
    field,
    place: "the tool's request",
    carriesTheRest: carriedArguments(op) === undefined,
    defaulted: Object.keys(op.defaults ?? {}),
    addSlot: (name) => `map it (query: { "${name}": "${name}" }${readonlyByDefault(method) ? "" : `, or body: { "${name}": "${name}" }`})`,
  });
  if (mismatches.length) throw new RestSpecError(mismatches);
  op.inputSchema = given ? (carriedArguments(op) ? closedToUndeclared(given) : given) : deriveInputSchema(op);
  return op;
}

/** The connection part of a checked rest or openapi block; `baseUrl` is openapi's own when the block has none. */
export function parseConnection(spec: Readonly<Record<string, unknown>>, baseUrl: unknown = spec.baseUrl): RestConnectionSpec {
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") throw new RestSpecError("baseUrl", "must be a non-empty string");
  const connection: RestConnectionSpec = {
    baseUrl,
    headers: { ...((spec.headers as Record<string, string> | undefined) ?? {}) },
    auth: parseAuth(spec.auth),
    timeoutMs: (spec.timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_MS,
  };
  if (typeof spec.idempotencyKeys === "boolean") connection.idempotencyKeys = spec.idempotencyKeys;
  if (typeof spec.maxResponseBytes === "number") connection.maxResponseBytes = spec.maxResponseBytes;
  const errors = parseRestErrorRules(spec.errors);
  if (errors.length) connection.errors = errors;
  return connection;
}

/**
 * The whole block: its schema first (every problem at once), then each tool's cross-field rules
 * and the names tools share, every tool's problems together: a plugin author fixes them in one pass.
 */
export function parseRestSpec(spec: Readonly<Record<string, unknown>>): { connection: RestConnectionSpec; tools: RestOperation[] } {
  assertSpec<RestBlock>(RestSpecError, REST_BLOCK_SCHEMA, spec, "");
  const problems: SpecProblem[] = [];
  const collect = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof RestSpecError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const connection = collect(() => parseConnection(spec));
  const tools = spec.tools.map((t, i) => collect(() => parseTool(t, `tools[${i}]`)));
  const firstIndex = new Map<string, number>();
  spec.tools.forEach((t, i) => {
    const first = firstIndex.get(t.name);
    if (first === undefined) firstIndex.set(t.name, i);
    else problems.push({ segments: ["tools", i, "name"], field: `tools[${i}].name`, message: `'${t.name}' is defined twice (first as tools[${first}].name); tool names must differ` });
  });
  if (problems.length || !connection) throw new RestSpecError(problems);
  return { connection, tools: tools as RestOperation[] };
}
