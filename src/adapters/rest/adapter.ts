import type { Adapter, CallContext, Logger, ToolDescriptor } from "../types.js";
import { createRedactor, redactValueOrText, type Redactor } from "../shared/redact.js";
import { toolLookup } from "../shared/tool-lookup.js";
import { jsonBodyText, RestClient, type BaseUrlSetting } from "./client.js";
import { RestError } from "./errors.js";
import { backendAnswered, IDEMPOTENCY_HEADER, IdempotencyKeys, type WriteKey } from "./idempotency.js";
import { paginate } from "./pagination.js";
import { buildRequest } from "./request.js";
import { shapeBody, shapeItems } from "./result-shape.js";
import type { RestConnectionSpec, RestOperation } from "./spec.js";

/**
 * An Adapter over a list of RestOperations (from a `rest` block or derived from an OpenAPI
 * document). Call results are plain JSON, redacted:
 *   - a normal tool: `{ status, data }` — the HTTP status and the decoded body (parsed JSON,
 *     text, or null for no body);
 *   - a paginated tool: `{ items, pages, complete, stoppedBecause? }` (see pagination.ts), plus
 *     `dropped` when the tool's `result.drop` left items out.
 * A tool's `result` block trims `data` / `items` first (see result-shape.ts).
 * A write (a tool that is not read-only) carries an Idempotency-Key (idempotency.ts) unless the
 * connection says `"idempotencyKeys": false`; the key is retired once the backend answered the
 * write, and kept for a retry while its answer is unknown.
 * Failures throw RestError (code UPSTREAM_ERROR / UPSTREAM_TIMEOUT / ARG_VALIDATION_FAILED /
 * NOT_CONFIGURED), which the runtime maps to its error codes.
 */

export interface OperationsAdapterOptions {
  env: NodeJS.ProcessEnv;
  log: Logger;
  redactor?: Redactor;
  /** Where hints say the base URL is set when it names no variable (client.ts). */
  baseUrlSetting?: BaseUrlSetting;
}

export function describeOperation(op: RestOperation): ToolDescriptor {
  const annotations: ToolDescriptor["annotations"] = { readOnlyHint: op.readonly, openWorldHint: true };
  if (!op.readonly && op.method === "DELETE") annotations.destructiveHint = true;
  if (op.method === "PUT" || op.method === "DELETE" || op.method === "GET" || op.method === "HEAD") annotations.idempotentHint = true;
  const description = op.description ?? `${op.method} ${op.path}`;
  return { name: op.name, description, inputSchema: op.inputSchema, annotations };
}

export function createOperationsAdapter(operations: readonly RestOperation[], connection: RestConnectionSpec, options: OperationsAdapterOptions): Adapter {
  const redactor = options.redactor ?? createRedactor();
  const client = new RestClient({ connection, env: options.env, log: options.log, redactor, ...(options.baseUrlSetting ? { baseUrlSetting: options.baseUrlSetting } : {}) });
  const operationNamed = toolLookup(operations, (message) => new RestError("UNKNOWN_TOOL", message));
  const tools = operations.map(describeOperation);
  const keys = connection.idempotencyKeys === false ? undefined : new IdempotencyKeys();
  return {
    async listTools() {
      return { tools };
    },
    async call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<unknown> {
      const op = operationNamed(name);
      const log = ctx?.log ?? options.log;
      let writeKey: WriteKey | undefined;
      try {
        const base = client.base();
        const request = buildRequest(op, args ?? {}, base);
        if (keys && !op.readonly) {
          const headers = (request.headers ??= {});
          const given = Object.keys(headers).some((header) => header.toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase());
          if (!given) {
            writeKey = keys.keyFor(ctx?.sessionId ?? "", name, args ?? {});
            headers[IDEMPOTENCY_HEADER] = writeKey.key;
          }
        }
        log.debug(`rest: ${op.method} ${redactor.redact(request.url.pathname)}`, { tool: name });
        if (op.paginate) {
          const pages = await paginate(client, request, op.paginate, base, ctx?.signal);
          writeKey?.answered();
          if (!op.result) return redactor.redactValue(pages);
          const { items, dropped } = shapeItems(pages.items, op.result);
          const shaped = { ...pages, items: op.result.first ? items.slice(0, 1) : items, ...(op.result.drop ? { dropped } : {}) };
          return redactor.redactValue(shaped);
        }
        const response = await client.send(request, ctx?.signal);
        writeKey?.answered();
        const data = op.result ? shapeBody(response.data, op.result) : response.data;
        // A body nested thousands of levels deep goes on as its JSON text, masked as text.
        return { status: response.status, data: redactValueOrText(redactor, data, data === response.data ? jsonBodyText(data) : undefined) };
      } catch (error) {
        // A 4xx is the backend's answer too; without one (cut, timeout, 5xx) the key stays for a retry.
        if (backendAnswered(error)) writeKey?.answered();
        // A safety net: whatever failed, no resolved secret (base URL variables included) leaves here.
        if (error instanceof Error) error.message = redactor.redact(error.message);
        throw error;
      }
    },
  };
}
