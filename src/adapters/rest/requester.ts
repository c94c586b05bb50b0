import { createRedactor, redactValueOrText } from "../shared/redact.js";
import { silentLogger } from "../../log.js";
import type { Logger } from "../types.js";
import { jsonBodyText, RestClient } from "./client.js";
import { RestError } from "./errors.js";
import { DEFAULT_TIMEOUT_MS } from "./spec.js";

/**
 * A small requester for the text layer (`commands/rest-api`): base URL from AGENT_API_BASE_URL,
 * bearer token from AGENT_API_TOKEN (optional). `path` is raw text from the sandbox, so it goes
 * through the same guard as manifest templates: it can never leave the base URL. `body` is a JSON
 * value (the command parsed it), sent as JSON whatever its type: a string is the JSON string
 * `"hello"`, not the raw text `hello`. GET and HEAD take no body. Results are `{ status, data }`,
 * redacted.
 */

export interface RestRequester {
  request(method: string, path: string, body?: unknown, options?: { signal?: AbortSignal }): Promise<{ status: number; data: unknown }>;
}

export function restRequesterFromEnv(env: NodeJS.ProcessEnv = process.env, options: { log?: Logger; timeoutMs?: number } = {}): RestRequester {
  if (!env.AGENT_API_BASE_URL) {
    const error = new RestError("NOT_CONFIGURED", "the REST requester needs $AGENT_API_BASE_URL, which is not set on the host");
    throw Object.assign(error, { variables: ["AGENT_API_BASE_URL"] });
  }
  const redactor = createRedactor([env.AGENT_API_TOKEN]);
  const client = new RestClient({
    connection: {
      baseUrl: "${AGENT_API_BASE_URL}",
      headers: {},
      auth: env.AGENT_API_TOKEN ? { type: "bearer", token: "${AGENT_API_TOKEN}" } : undefined,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    },
    env,
    log: options.log ?? silentLogger,
    redactor,
    // The whole URL is this variable, not a plugin.json's adapter.baseUrl: a refusal names it.
    baseUrlSource: { variable: "AGENT_API_BASE_URL", credentials: "set AGENT_API_TOKEN (sent as a bearer token)" },
  });
  client.base(); // a malformed base URL fails now, not on the first request
  return {
    async request(method, path, body, requestOptions = {}) {
      const verb = String(method || "GET").toUpperCase();
      if (!/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(verb)) throw new RestError("ARG_VALIDATION_FAILED", `'${method}' is not an HTTP method`);
      // Refused before anything is sent: fetch cannot send one, and the fix is the caller's.
      if (body !== undefined && (verb === "GET" || verb === "HEAD")) {
        throw new RestError("ARG_VALIDATION_FAILED", `${verb} takes no body, and nothing was sent: put the values in the path's query ('/items?page=2'), or send the body with POST`);
      }
      try {
        const url = client.urlForRawPath(String(path));
        const response = await client.send({ method: verb, url, body: body === undefined ? undefined : { json: body } }, requestOptions.signal);
        // A body nested thousands of levels deep goes on as its JSON text, masked as text.
        return { status: response.status, data: redactValueOrText(redactor, response.data, jsonBodyText(response.data)) };
      } catch (error) {
        if (error instanceof Error) error.message = redactor.redact(error.message);
        throw error;
      }
    },
  };
}
