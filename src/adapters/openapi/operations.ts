import type { JsonSchema, Logger } from "../types.js";
import { readonlyByDefault, type AuthSpec, type BodyMapping, type RestOperation } from "../rest/spec.js";
import { checkPathTemplate } from "../rest/url-guard.js";
import { RestSpecError } from "../rest/errors.js";
import { setOwnField } from "../../plain-object.js";
import { asTree, MAX_SCHEMA_NODES, newSchemaBudget, SchemaConverter, type SchemaBudget } from "./schema.js";

/**
 * OpenAPI operations → RestOperations (the REST kind then does the calling).
 *  - name: operationId sanitised to [A-Za-z0-9_-], else `method_path` (`get_pet_petId`);
 *    duplicates get a numeric suffix;
 *  - description: summary, then description (capped);
 *  - one input schema: path, query and header parameters (a name used twice is prefixed with its
 *    location, `query_id`, numbered when that is taken too, `query_id_2`, and its description says
 *    which parameter it is), and the JSON request body — its properties at top level when the
 *    body is an object whose property names do not clash with a parameter, else the whole body
 *    under `body`;
 *  - read-only: GET/HEAD, or listed in `readonly`.
 * Cookie parameters are not sent. Operations whose path fails the base-URL guard are skipped
 * with a warning. Names from the spec are looked up as own fields only: a parameter named
 * `constructor` or `__proto__` is a parameter like any other.
 */

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"] as const;
const DESCRIPTION_MAX = 300;

export interface OperationFilter {
  include?: readonly string[];
  readonly?: readonly string[];
  log: Logger;
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function sanitizeName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/_+/g, "_").replace(/^_|_$/g, "").slice(0, 64);
}

function operationName(method: string, path: string, operationId: unknown): string {
  const fromId = typeof operationId === "string" ? sanitizeName(operationId) : "";
  return fromId || sanitizeName(`${method}_${path.replace(/[{}]/g, "")}`) || method;
}

function describe(op: Obj, method: string, path: string): string {
  const summary = typeof op.summary === "string" ? op.summary.trim() : "";
  const description = typeof op.description === "string" ? op.description.trim() : "";
  let text = summary && description && !description.startsWith(summary.replace(/\.$/, "")) ? `${summary} ${description}` : summary || description;
  if (!text) text = `${method.toUpperCase()} ${path}`;
  if (op.deprecated === true) text = `(deprecated) ${text}`;
  return text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX - 1)}…` : text;
}

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: JsonSchema;
}

function readParameters(pathItem: Obj, op: Obj, schemas: SchemaConverter, budget: SchemaBudget): Parameter[] {
  const byKey = new Map<string, Obj>();
  for (const list of [pathItem.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const p = schemas.follow(item);
      if (isObj(p) && typeof p.name === "string" && typeof p.in === "string") byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  const out: Parameter[] = [];
  for (const p of byKey.values()) {
    if (p.in !== "path" && p.in !== "query" && p.in !== "header") continue;
    let raw: unknown = p.schema;
    if (!raw && isObj(p.content)) raw = Object.values(p.content).find(isObj)?.schema;
    // A copy: the converter's schemas are shared, and this one gets the parameter's own words.
    const schema = { ...schemas.convert(raw ?? {}, budget) };
    if (typeof p.description === "string" && p.description && schema.description === undefined) schema.description = p.description;
    if (p.deprecated === true) schema.deprecated = true;
    out.push({ name: p.name as string, in: p.in, required: p.in === "path" || p.required === true, schema });
  }
  return out;
}

/** Media types whose body is parts with boundaries (form fields, files), which the REST layer does not build. */
const MULTIPART = /^multipart\//i;

/**
 * The request body's media type to send: JSON when offered, else the first the REST layer can
 * send. A body offered only as multipart (`multipart/form-data`) throws: sent as JSON, the call
 * could never work, so the operation is left out (operationsFromDocument says so).
 */
function pickContent(requestBody: Obj): { mediaType: string; schema: unknown } | undefined {
  if (!isObj(requestBody.content)) return undefined;
  const entries = Object.entries(requestBody.content).filter(([, v]) => isObj(v)) as [string, Obj][];
  const json = entries.find(([type]) => /^application\/(?:[\w.+-]*\+)?json\b/i.test(type));
  const chosen = json ?? entries.find(([type]) => !MULTIPART.test(type));
  if (!chosen && entries.length) {
    throw new Error(
      `its request body is only ${entries.map(([type]) => `'${type}'`).join(", ")} (form parts and files), which this adapter does not send; it is left out (call it with a rest block tool or a module adapter instead)`,
    );
  }
  return chosen ? { mediaType: chosen[0], schema: chosen[1].schema } : undefined;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return (schema.type === "object" || (schema.type === undefined && isObj(schema.properties))) && isObj(schema.properties) && !schema.allOf && !schema.anyOf && !schema.oneOf;
}

/** What building an operation noticed that its caller should say: parts of its input schema past the node budget. */
export interface BuildNotes {
  schemaCut?: boolean;
}

export function buildOperation(
  method: string,
  path: string,
  pathItem: Obj,
  op: Obj,
  name: string,
  readonly: boolean,
  root?: unknown,
  schemas: SchemaConverter = new SchemaConverter(root),
  notes: BuildNotes = {},
): RestOperation {
  const budget = newSchemaBudget();
  const properties: Record<string, JsonSchema> = {};
  const has = (key: string): boolean => Object.hasOwn(properties, key);
  const required: string[] = [];
  const query: RestOperation["query"] = [];
  const headers: RestOperation["headers"] = [];
  const pathArgs = new Map<string, string>();
  /**
   * An argument name no other argument has: `name`, else `in_name` (`query_id`), else that with a
   * number (`query_id_2`): two parameters sharing one argument would both get its one value.
   */
  const freeName = (name: string, location: string): string => {
    if (!has(name)) return name;
    const prefixed = `${location}_${name}`;
    let arg = prefixed;
    for (let n = 2; has(arg); n++) arg = `${prefixed}_${n}`;
    return arg;
  };
  /** A renamed argument's description says which parameter it is, so the model can tell them apart. */
  const renamed = (schema: JsonSchema, location: string, name: string): JsonSchema => {
    const which = `${location} parameter '${name}'`;
    return { ...schema, description: typeof schema.description === "string" && schema.description ? `${which}: ${schema.description}` : which };
  };
  for (const p of readParameters(pathItem, op, schemas, budget)) {
    const arg = freeName(p.name, p.in);
    setOwnField(properties, arg, arg === p.name ? p.schema : renamed(p.schema, p.in, p.name));
    if (p.required) required.push(arg);
    if (p.in === "path") pathArgs.set(p.name, arg);
    else if (p.in === "query") query.push({ param: p.name, arg });
    else headers.push({ header: p.name, arg });
  }
  // Template placeholders not declared as parameters still need a value.
  const placeholders = checkPathTemplate(path, `path ${JSON.stringify(path)}`);
  for (const name of placeholders) {
    if (!pathArgs.has(name)) {
      const arg = freeName(name, "path");
      setOwnField(properties, arg, arg === name ? { type: "string", description: "path parameter" } : renamed({ type: "string" }, "path", name));
      required.push(arg);
      pathArgs.set(name, arg);
    }
  }
  // The REST layer substitutes `{name}` from args[name]; rename placeholders whose argument moved.
  // One pass: renamed one at a time, `{id}` → `{path_id}` would then be caught by a `{path_id}` → `{path_path_id}`.
  const template = path.replace(/\{([^{}]*)\}/g, (placeholder, name: string) => {
    const arg = pathArgs.get(name);
    return arg === undefined ? placeholder : `{${arg}}`;
  });

  let body: BodyMapping = { kind: "none" };
  let open = false;
  const declaredBody = schemas.follow(op.requestBody);
  const requestBody = isObj(declaredBody) ? declaredBody : undefined;
  const content = requestBody ? pickContent(requestBody) : undefined;
  if (requestBody && content) {
    const schema = schemas.convert(content.schema ?? {}, budget);
    const bodyRequired = requestBody.required === true;
    const isJson = /json/i.test(content.mediaType);
    const props = isObj(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
    const clash = Object.keys(props).some(has);
    if (isJson && isObjectSchema(schema) && !clash) {
      const extra = schema.additionalProperties;
      for (const [k, v] of Object.entries(props)) setOwnField(properties, k, v);
      if (bodyRequired && Array.isArray(schema.required)) for (const k of schema.required) if (typeof k === "string") required.push(k);
      if (extra === true || isObj(extra)) {
        body = { kind: "rest" };
        open = true;
      } else {
        body = { kind: "fields", fields: Object.keys(props).map((k) => ({ prop: k, arg: k })) };
      }
    } else {
      const arg = !has("body") ? "body" : !has("requestBody") ? "requestBody" : "_body";
      setOwnField(properties, arg, typeof requestBody.description === "string" && schema.description === undefined ? { ...schema, description: requestBody.description } : schema);
      if (bodyRequired) required.push(arg);
      body = { kind: "whole", arg, contentType: content.mediaType };
    }
  }
  // A tree of its own: the converter shares schema objects between places and operations.
  const inputSchema: JsonSchema = asTree({ type: "object", properties, additionalProperties: open });
  if (required.length) inputSchema.required = [...new Set(required)];
  if (budget.cut) notes.schemaCut = true;
  return {
    name,
    description: describe(op, method, path),
    method: method.toUpperCase(),
    path: template,
    pathParams: [...pathArgs.values()],
    query,
    queryRest: false,
    headers,
    body,
    inputSchema,
    readonly,
  };
}

export function operationsFromDocument(document: Obj, filter: OperationFilter): RestOperation[] {
  const paths = isObj(document.paths) ? document.paths : {};
  const include = filter.include ? new Set(filter.include) : undefined;
  const readonlyNames = new Set(filter.readonly ?? []);
  const out: RestOperation[] = [];
  const used = new Set<string>();
  const matched = new Set<string>();
  // One converter for the document: a component shared by many operations is converted once.
  const schemas = new SchemaConverter(document);
  for (const [path, declaredItem] of Object.entries(paths)) {
    const pathItem = schemas.follow(declaredItem);
    if (!isObj(pathItem)) continue;
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const base = operationName(method, path, op.operationId);
      const ids = [base, typeof op.operationId === "string" ? op.operationId : undefined].filter((x): x is string => !!x);
      if (include && !ids.some((id) => include.has(id))) continue;
      ids.forEach((id) => matched.add(id));
      let name = base;
      for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
      const readonly = ids.some((id) => readonlyNames.has(id)) || readonlyByDefault(method);
      try {
        const notes: BuildNotes = {};
        out.push(buildOperation(method, path, pathItem, op, name, readonly, document, schemas, notes));
        used.add(name);
        if (notes.schemaCut) {
          filter.log.warn(
            `openapi: operation '${name}' (${method.toUpperCase()} ${path}): its input schema is larger than ${MAX_SCHEMA_NODES} schema nodes written out; the parts past that accept any value and say so in their description`,
          );
        }
      } catch (error) {
        filter.log.warn(`openapi: operation '${name}' (${method.toUpperCase()} ${path}) skipped: ${(error as Error).message}`);
      }
    }
  }
  if (include) {
    const unknown = [...include].filter((id) => !matched.has(id));
    if (unknown.length) throw new Error(`include names operations the spec does not have: ${unknown.join(", ")}`);
  }
  return out;
}

/**
 * The first server URL (variables at their defaults), resolved against the spec's own URL. A
 * variable without a default (OpenAPI requires one) throws a RestSpecError for baseUrl: used as
 * written, `http://{host}/v1` would fail every call as an unreachable host.
 */
export function serverUrl(document: Obj, location: string, isUrl: boolean): string | undefined {
  const servers = Array.isArray(document.servers) ? document.servers : [];
  const first = servers.find(isObj);
  let raw = first && typeof first.url === "string" ? first.url : isUrl ? "/" : undefined;
  if (raw === undefined || !first) return isUrl ? new URL("/", location).href : undefined;
  const variables = isObj(first.variables) ? first.variables : {};
  const written = raw;
  raw = raw.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    if (isObj(variable) && variable.default !== undefined) return String(variable.default);
    throw new RestSpecError(
      "baseUrl",
      `is needed: the spec's first server URL '${written}' has the variable '{${name}}' with ${Object.hasOwn(variables, name) ? "no default" : "no entry under its variables"}; set adapter.baseUrl in plugin.json (e.g. "${written.replace(/\{[^}]+\}/g, "…")}" with the value filled in), or give the variable a default in the spec`,
    );
  });
  if (/^https?:\/\//i.test(raw)) return raw;
  return isUrl ? new URL(raw, location).href : undefined;
}

/**
 * Parameters the configured auth already supplies (an `api_key` header or query parameter) are
 * removed from the tools: credentials come from the host, never from tool arguments.
 */
export function dropAuthParameters(operations: RestOperation[], auth: AuthSpec | undefined): RestOperation[] {
  if (!auth) return operations;
  const headerName = auth.type === "header" ? auth.name : auth.type === "login" ? auth.header : auth.type === "bearer" ? "Authorization" : undefined;
  const queryName = auth.type === "query" ? auth.name : undefined;
  return operations.map((op) => {
    const dropped = [
      ...op.headers.filter((h) => headerName !== undefined && h.header.toLowerCase() === headerName.toLowerCase()).map((h) => h.arg),
      ...op.query.filter((q) => queryName !== undefined && q.param === queryName).map((q) => q.arg),
    ];
    if (dropped.length === 0) return op;
    const properties = { ...((op.inputSchema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
    for (const arg of dropped) delete properties[arg];
    const inputSchema: JsonSchema = { ...op.inputSchema, properties };
    if (Array.isArray(op.inputSchema.required)) inputSchema.required = (op.inputSchema.required as string[]).filter((r) => !dropped.includes(r));
    return {
      ...op,
      inputSchema,
      headers: op.headers.filter((h) => !dropped.includes(h.arg)),
      query: op.query.filter((q) => !dropped.includes(q.arg)),
    };
  });
}
