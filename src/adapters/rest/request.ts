import { uncarriedArgument, uncarriedMessage } from "../shared/carried-arguments.js";
import { brokenMappingAnswer, contradictedMapping } from "../shared/mapping-check.js";
import type { OutgoingRequest, RequestBody } from "./client.js";
import { loneSurrogateProblem } from "../shared/lone-surrogate.js";
import { RestError, UrlGuardError } from "./errors.js";
import type { RestOperation } from "./spec.js";
import { resolveUnderBase, substitutePath, type BaseUrl } from "./url-guard.js";

/**
 * Tool arguments → one HTTP request: path parameters encoded into the checked template, query
 * parameters (arrays repeated, objects flattened as `key[sub]`), headers, and the JSON body.
 */

/**
 * Refuse a text an argument puts into the request as UTF-8 (a query, a form or text body) when it
 * holds a lone surrogate: URLSearchParams and the body's encoder would send U+FFFD in its place.
 * `where`: how the answer names it ("argument 'q'"); `arg`: the argument, for `details.argument`.
 */
function checkSendable(text: string, where: string, arg: string): void {
  const problem = loneSurrogateProblem(text);
  if (problem) throw new RestError("ARG_VALIDATION_FAILED", `${where} ${problem}`, undefined, { details: { argument: arg } });
}

/** Append argument `arg`'s value as query (or form) parameter `name`: arrays repeated, objects flattened as `name[key]`. */
function appendQuery(params: URLSearchParams, name: string, value: unknown, arg: string): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendQuery(params, name, item, arg);
    return;
  }
  if (typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      checkSendable(key, `a key of argument '${arg}' (query parameter '${name}[${key}]')`, arg);
      appendQuery(params, `${name}[${key}]`, inner, arg);
    }
    return;
  }
  const text = String(value);
  checkSendable(text, name === arg ? `argument '${arg}'` : `argument '${arg}' (query parameter '${name}')`, arg);
  params.append(name, text);
}

/** The tool's declared defaults under the caller's arguments (an explicit null is kept: it means "none"). */
function withDefaults(defaults: Readonly<Record<string, unknown>> | undefined, args: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (!defaults) return args;
  const merged: Record<string, unknown> = { ...args };
  for (const [name, value] of Object.entries(defaults)) if (merged[name] === undefined) merged[name] = value;
  return merged;
}

/**
 * The arguments a tool puts somewhere in its request (path, query, headers, body fields or the
 * whole body); undefined when it also carries the others (a `body: "*"`, or the query of a tool
 * that maps neither query nor body).
 */
export function carriedArguments(op: Pick<RestOperation, "pathParams" | "query" | "headers" | "body" | "queryRest">): string[] | undefined {
  if (op.queryRest || op.body.kind === "rest") return undefined;
  const names = new Set<string>([...op.pathParams, ...op.query.map((q) => q.arg), ...op.headers.map((h) => h.arg)]);
  if (op.body.kind === "fields") for (const { arg } of op.body.fields) names.add(arg);
  if (op.body.kind === "whole") names.add(op.body.arg);
  return [...names];
}

/**
 * An argument the request has no place for is refused, and nothing is sent: dropped, it would be
 * lost while the call seemed to succeed. Validation refuses it first when the tool's schema is
 * closed; this stands for a schema that could not be closed (built from parts).
 */
function refuseUncarried(op: RestOperation, given: Readonly<Record<string, unknown>>): void {
  const carried = carriedArguments(op);
  const found = carried ? uncarriedArgument(given, carried) : undefined;
  refuseBrokenMapping(op, given, found?.key);
  if (!carried || !found) return;
  throw new RestError("ARG_VALIDATION_FAILED", uncarriedMessage(op.name, found, carried, "this tool's request has no place for it, and nothing was sent"), undefined, {
    details: { argument: found.key, parameters: carried, ...(found.meant ? { suggestion: found.meant } : {}) },
  });
}

/**
 * A call that meets a mapping the tool's own schema contradicts (one the load could not compare:
 * a schema built from parts) is the plugin's fault: said so, not "fix the arguments", which no
 * argument could satisfy. `uncarried`: the argument the request has no place for, if any.
 */
function refuseBrokenMapping(op: RestOperation, given: Readonly<Record<string, unknown>>, uncarried: string | undefined): void {
  const needed = op.pathParams.filter((arg) => op.defaults?.[arg] === undefined).map((arg) => ({ arg, slot: `path placeholder {${arg}}` }));
  const broken = contradictedMapping(op.inputSchema, given, uncarried, needed);
  if (!broken) return;
  const { message, hint } = brokenMappingAnswer(op.name, broken);
  throw new RestError("NOT_CONFIGURED", message, undefined, { hint });
}

/**
 * One header argument as its value's text. HTTP header values are bytes: a line break would start
 * another header, and a character past Latin-1 (U+00FF) cannot be sent at all (fetch throws
 * "Cannot convert argument to a ByteString", which would read as the service's failure).
 */
function headerValue(tool: string, arg: string, value: unknown): string {
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (/[\r\n]/.test(text)) throw new UrlGuardError(`header argument '${arg}' must not contain line breaks`);
  const wide = /[\u{100}-\u{10FFFF}]/u.exec(text);
  if (wide) {
    throw new RestError(
      "ARG_VALIDATION_FAILED",
      `header argument '${arg}' of tool '${tool}' has the character '${wide[0]}' at position ${wide.index}, and nothing was sent: HTTP header values carry only Latin-1 (ASCII is safest); write the value without it, or encoded as the API documents (e.g. percent-encoded)`,
      undefined,
      { details: { argument: arg } },
    );
  }
  return text;
}

export function buildRequest(op: RestOperation, given: Readonly<Record<string, unknown>>, base: BaseUrl): OutgoingRequest {
  refuseUncarried(op, given);
  const args = withDefaults(op.defaults, given);
  const used = new Set<string>(op.pathParams);
  const url = resolveUnderBase(base, substitutePath(op.path, args));
  for (const { param, arg } of op.query) {
    used.add(arg);
    appendQuery(url.searchParams, param, args[arg], arg);
  }
  // Fixed values win over an argument of the same name: the manifest pinned them.
  for (const [param, value] of Object.entries(op.constQuery ?? {})) url.searchParams.set(param, value);
  const headers: Record<string, string> = {};
  for (const { header, arg } of op.headers) {
    used.add(arg);
    const value = args[arg];
    if (value === undefined || value === null) continue;
    headers[header] = headerValue(op.name, arg, value);
  }
  let body: RequestBody | undefined;
  switch (op.body.kind) {
    case "fields": {
      const json: Record<string, unknown> = {};
      for (const { prop, arg } of op.body.fields) {
        used.add(arg);
        if (args[arg] !== undefined) json[prop] = args[arg];
      }
      if (Object.keys(json).length > 0) body = { json };
      break;
    }
    case "whole": {
      used.add(op.body.arg);
      const value = args[op.body.arg];
      if (value !== undefined) {
        const { contentType } = op.body;
        if (typeof value === "string" && !/json/i.test(contentType)) {
          checkSendable(value, `argument '${op.body.arg}'`, op.body.arg);
          body = { raw: value, contentType };
        } else if (/x-www-form-urlencoded/i.test(contentType) && value && typeof value === "object") {
          const form = new URLSearchParams();
          for (const [key, inner] of Object.entries(value)) {
            checkSendable(key, `a key of argument '${op.body.arg}'`, op.body.arg);
            appendQuery(form, key, inner, op.body.arg);
          }
          body = { raw: form.toString(), contentType };
        } else body = { json: value };
      }
      break;
    }
    case "rest": {
      const json: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(args)) if (!used.has(key) && value !== undefined) json[key] = value;
      body = { json };
      break;
    }
    case "none":
      break;
  }
  if (op.bodyConstants) {
    // Constants win over arguments of the same name: they are what the adapter relies on.
    const json = body && "json" in body && body.json && typeof body.json === "object" && !Array.isArray(body.json) ? (body.json as Record<string, unknown>) : {};
    if (body && !("json" in body && json === body.json)) throw new UrlGuardError(`tool '${op.name}' has bodyConstants but its body is not a JSON object`);
    body = { json: { ...json, ...op.bodyConstants } };
  }
  if (op.queryRest) {
    for (const [key, value] of Object.entries(args)) if (!used.has(key) && !(op.constQuery && key in op.constQuery)) appendQuery(url.searchParams, key, value, key);
  }
  return { method: op.method, url, headers, body };
}
