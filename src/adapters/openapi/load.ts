import $RefParser from "@apidevtools/json-schema-ref-parser";
import path from "node:path";
import { AdapterError } from "../shared/errors.js";
import { resolvePointer } from "./schema.js";

/**
 * Loading an OpenAPI document: a file (relative to the plugin folder) or an http(s) URL, JSON or
 * YAML, parsed with @apidevtools/json-schema-ref-parser. Only references inside the document are
 * followed (`resolve.external: false`): a spec cannot make the host read other files or URLs.
 * `$ref`s are checked here (each must point at something in the document) and followed where they
 * are read (operations.ts, schema.ts), not dereferenced up front: the library's dereference walks
 * every path to a shared component again (exponential: a 4 KB spec of 8 levels × 10 properties,
 * each naming the next level, took 70 s), while following them on use converts each once.
 */

export interface LoadedDocument {
  document: Record<string, unknown>;
  /** Absolute file path or URL the document came from. */
  location: string;
  isUrl: boolean;
}

const DEFAULT_SPEC_TIMEOUT_MS = 30_000;

export async function loadOpenApiDocument(spec: string, pluginDir: string, timeoutMs = DEFAULT_SPEC_TIMEOUT_MS): Promise<LoadedDocument> {
  const isUrl = /^https?:\/\//i.test(spec);
  if (!isUrl && /^[a-z][a-z0-9+.-]*:/i.test(spec) && !/^[a-z]:[\\/]/i.test(spec)) {
    throw new Error(`spec '${spec}' must be a file path (relative to the plugin folder) or an http(s) URL`);
  }
  const location = isUrl ? spec : path.resolve(pluginDir, spec);
  let parsed: unknown;
  try {
    // The manifest is host configuration, so a local URL (a dev server on localhost) is allowed.
    parsed = await $RefParser.parse(location, { resolve: { external: false, http: { timeout: timeoutMs, safeUrlResolver: false } } });
  } catch (error) {
    const message = `spec '${spec}' could not be read: ${(error as Error).message}`;
    // A spec fetched from its service is read at the first use, not at start: the service being
    // down then is no fault of the manifest, and the next use builds again.
    if (isUrl && isFetchFailure(error)) throw new AdapterError("UPSTREAM_ERROR", message, { cause: error, hint: SPEC_UNREACHABLE_HINT });
    throw new Error(message);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`spec '${spec}' is not an OpenAPI document (not an object)`);
  const version = (parsed as Record<string, unknown>).openapi;
  if (typeof version !== "string" || !/^3\./.test(version)) {
    const swagger = (parsed as Record<string, unknown>).swagger;
    throw new Error(`spec '${spec}' is ${swagger ? `Swagger ${String(swagger)}` : "not OpenAPI 3.x"}; only OpenAPI 3.0/3.1 documents are supported`);
  }
  const document = parsed as Record<string, unknown>;
  const broken = brokenLocalRef(document);
  if (broken !== undefined) throw new Error(`spec '${spec}' has a $ref that cannot be resolved: '${broken}' points at nothing in the document; fix the reference or add what it names`);
  return { document, location, isUrl };
}

const SPEC_UNREACHABLE_HINT =
  "The plugin reads its OpenAPI document from the URL `message` names when it is first used, and that service could not be reached; the call's arguments are not at fault. Retry later (each use tries again); if it keeps failing, tell the user the service is down or the spec URL is wrong.";

/**
 * Whether the spec's service could not be reached or did not answer it (no connection, a timeout,
 * an HTTP error status: the parser's ResolverError), rather than answering a document it cannot parse.
 */
function isFetchFailure(error: unknown): boolean {
  return (error as { name?: unknown }).name === "ResolverError";
}

/** The first `#/…` reference that points at nothing. Each object is visited once (YAML aliases can share them). */
function brokenLocalRef(document: Record<string, unknown>): string | undefined {
  const visited = new WeakSet<object>();
  const pending: unknown[] = [document];
  while (pending.length) {
    const value = pending.pop();
    if (!value || typeof value !== "object" || visited.has(value)) continue;
    visited.add(value);
    const ref = (value as Record<string, unknown>).$ref;
    if (typeof ref === "string" && ref.startsWith("#") && resolvePointer(document, ref) === undefined) return ref;
    pending.push(...Object.values(value));
  }
  return undefined;
}
