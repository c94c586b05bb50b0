import $RefParser from "@apidevtools/json-schema-ref-parser";
import path from "node:path";

/**
 * Loading an OpenAPI document: a file (relative to the plugin folder) or an http(s) URL, JSON or
 * YAML, parsed and dereferenced with @apidevtools/json-schema-ref-parser. Only references inside
 * the document are followed (`resolve.external: false`): a spec cannot make the host read other
 * files or URLs. Circular references are left as `$ref` and turned into plain placeholders by
 * the schema conversion (schema.ts), so tool schemas stay serialisable.
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
    throw new Error(`spec '${spec}' could not be read: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`spec '${spec}' is not an OpenAPI document (not an object)`);
  const version = (parsed as Record<string, unknown>).openapi;
  if (typeof version !== "string" || !/^3\./.test(version)) {
    const swagger = (parsed as Record<string, unknown>).swagger;
    throw new Error(`spec '${spec}' is ${swagger ? `Swagger ${String(swagger)}` : "not OpenAPI 3.x"}; only OpenAPI 3.0/3.1 documents are supported`);
  }
  let document: Record<string, unknown>;
  try {
    document = await $RefParser.dereference(location, parsed as Record<string, unknown>, {
      resolve: { external: false },
      dereference: { circular: "ignore" },
    });
  } catch (error) {
    throw new Error(`spec '${spec}' has a $ref that cannot be resolved: ${(error as Error).message}`);
  }
  return { document, location, isUrl };
}
