import { RestClient, RestError } from "agent-tools-runtime/adapters";
import { skillError } from "agent-tools-runtime/plugin";
import { URLSearchParams } from "node:url";
import { SkillArgError } from "./args.mjs";
import { NO_INSTANCE } from "./config.mjs";

/**
 * n8n's public REST API (`<instance>/api/v1`, header X-N8N-API-KEY from $N8N_API_KEY), on the
 * runtime's own RestClient: the key is resolved on the host per request and registered with the
 * plugin's redactor, redirects cannot leave the instance, and errors carry status and a redacted
 * excerpt of n8n's `{"message": ...}` body. Results are redacted before a skill sees them.
 */

/** n8n pages lists by `limit` (default 100, at most 250) and answers `nextCursor`. */
export const PAGE_LIMIT = 100;
/** A safety stop for runaway cursors: 200 pages of 100 is 20,000 items. */
export const MAX_PAGES = 200;

/** The methods that change data: one of these that gets no answer may still have happened. */
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A refused key says which variable holds it (the generic answer would only say "HTTP 401"). */
const KEY_REFUSED = {
  status: [401],
  headers: {},
  code: "NOT_CONFIGURED",
  message: "n8n refused the API key in N8N_API_KEY ({body.message})",
  hint: "Set N8N_API_KEY in the environment of the agent-tools server to a valid n8n API key (n8n: Settings → n8n API), then restart it. Tool arguments cannot fix this.",
  details: {},
};

/** What a body that is not the JSON asked for begins with, masked, for the message that says so. */
function firstBytes(text, redactor) {
  const flat = redactor.redact(String(text).replace(/\s+/g, " ").trim());
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat);
}

export function createN8nRest({ instance, env, log, redactor, timeoutMs = 30_000 }) {
  const client = new RestClient({
    connection: {
      baseUrl: `${instance}/api/v1`,
      headers: {},
      auth: { type: "header", name: "X-N8N-API-KEY", value: "${N8N_API_KEY}" },
      timeoutMs,
      errors: [KEY_REFUSED],
    },
    env,
    log,
    redactor,
  });

  function target(path, query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      params.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
    const search = params.toString();
    return client.urlForRawPath(`${path}${search ? `?${search}` : ""}`);
  }

  // One helper for every skill call: a call's signal (its deadline and the client's cancel) is an
  // option of each request (restFor binds it), not a second client, so every request a skill makes
  // still reaches this object through the runtime's gate (adapter.mjs `readsOnly`).
  const rest = {
    instance,

    /**
     * Refuse before anything is done when N8N_API_KEY is not set: a skill that writes over MCP
     * and reads back over REST must not write first and fail after (README "Configuration").
     */
    requireKey() {
      if (String(env.N8N_API_KEY ?? "").trim()) return;
      throw skillError("NOT_CONFIGURED", "this skill needs N8N_API_KEY (n8n's REST API key), which is not set on the host; nothing was done", { details: { missing: ["N8N_API_KEY"] } });
    },

    /**
     * One request; answers the decoded (and redacted) body. A write that got no HTTP answer (a
     * timeout, a broken connection, a cancel) is flagged `outcomeUnknown`: n8n may have done it.
     */
    async request(method, path, { query, body, signal } = {}) {
      const url = target(path, query);
      try {
        const response = await client.send({ method, url, ...(body !== undefined ? { body: { json: body } } : {}) }, signal);
        return redactor.redactValue(response.data);
      } catch (error) {
        if (WRITES.has(method.toUpperCase()) && error instanceof RestError && error.status === undefined && ["UPSTREAM_ERROR", "UPSTREAM_TIMEOUT"].includes(error.code)) {
          error.outcomeUnknown = true;
        }
        throw error;
      }
    },

    /**
     * Every item of a cursor-paged list (`{ data, nextCursor }`), up to `max` items, each id once.
     * A failing page names its number and how many items came before it; a cursor the server
     * already gave is refused (it would read the same pages until MAX_PAGES, and the repeated
     * items would reach the bulk deletes).
     */
    async listAll(path, query = {}, { max = Infinity, signal } = {}) {
      const items = [];
      const ids = new Set();
      const cursors = new Set();
      let cursor;
      for (let page = 1; page <= MAX_PAGES; page++) {
        let answer;
        try {
          answer = await rest.request("GET", path, { query: { ...query, limit: PAGE_LIMIT, ...(cursor ? { cursor } : {}) }, signal });
        } catch (error) {
          if (page > 1 && error instanceof Error) error.message = `page ${page} of ${path} failed after ${items.length} items: ${error.message}`;
          throw error;
        }
        const data = Array.isArray(answer?.data) ? answer.data : Array.isArray(answer) ? answer : undefined;
        if (!data) throw new RestError("UPSTREAM_ERROR", `GET ${path} (page ${page}) ${notAList(answer, redactor)}`);
        for (const item of data) {
          const id = item && typeof item === "object" ? item.id : undefined;
          if (id !== undefined && id !== null) {
            if (ids.has(String(id))) continue;
            ids.add(String(id));
          }
          items.push(item);
        }
        if (items.length >= max) return { items: items.slice(0, max), pages: page, complete: false };
        cursor = typeof answer?.nextCursor === "string" && answer.nextCursor ? answer.nextCursor : undefined;
        if (!cursor) return { items, pages: page, complete: true };
        if (cursors.has(cursor)) {
          throw new RestError("UPSTREAM_ERROR", `GET ${path}: the server repeated a page cursor on page ${page} (after ${items.length} distinct items), so the list would never end; nothing was answered from it. Report this n8n instance's paging fault; a retry reads the same pages.`);
        }
        cursors.add(cursor);
      }
      log.warn(`n8n: ${path} still had a next cursor after ${MAX_PAGES} pages; stopped`);
      return { items, pages: MAX_PAGES, complete: false };
    },
  };
  return rest;
}

/** Why a page is not `{ data: [...] }`: text that is not JSON (a login page, a cut answer) is quoted, masked. */
function notAList(answer, redactor) {
  if (typeof answer === "string") return `answered text that is not JSON, beginning ${firstBytes(answer, redactor)}; check that N8N_INSTANCE_URL points at n8n itself, not a login page or proxy`;
  if (answer === undefined || answer === null || answer === "") return "answered an empty body instead of a 'data' list";
  return `answered JSON without a 'data' list (its keys: ${typeof answer === "object" ? Object.keys(answer).slice(0, 10).join(", ") || "none" : typeof answer})`;
}

/** How every REST skill's meta describes the optional `url` argument that restFor checks. */
export const URL_ARG = "optional; must be the configured instance if given";

/**
 * The REST helper for a skill call. A `url` argument is optional: when given it must name the
 * configured instance (the API key is only ever sent there); it never redirects the call.
 */
export function restFor(adapter, args, context) {
  const shared = adapter && adapter.n8nRest;
  if (!shared) throw skillError("NOT_CONFIGURED", "this skill needs the n8n plugin's adapter (REST client missing)");
  if (!shared.instance) throw skillError("NOT_CONFIGURED", NO_INSTANCE);
  // Every request of this call carries its signal: past the deadline or on the client's cancel
  // nothing goes on running in the background after the answer.
  return { rest: context?.signal ? withSignal(shared, context.signal) : shared, args: withoutUrlArg(shared.instance, args) };
}

/**
 * `args` without its `url`, once checked: the skills that call only the MCP tools accept it as the
 * REST ones do. Without a known instance (N8N_MCP_URL alone, no /mcp-server/ path) there is
 * nothing to check it against, and it is refused.
 */
export function withoutUrlArg(instance, args) {
  if (args.url !== undefined && args.url !== null && args.url !== "") {
    if (!instance) throw skillError("NOT_CONFIGURED", `'url' cannot be checked: ${NO_INSTANCE}; or leave 'url' out`);
    let given;
    try {
      given = new URL(String(args.url));
    } catch {
      throw new SkillArgError(`'url' is not a URL; leave it out to use the configured instance`);
    }
    const configured = new URL(instance);
    if (given.origin !== configured.origin) {
      throw new SkillArgError(`'url' (${given.origin}) is not the configured n8n instance (${configured.origin}); the instance is set on the host with N8N_INSTANCE_URL or N8N_MCP_URL, so leave 'url' out`);
    }
  }
  const rest_args = { ...args };
  delete rest_args.url;
  return rest_args;
}

/**
 * The helper for one skill call: every request carries the call's `signal`, so past the deadline or
 * on the client's cancel nothing goes on running in the background after the answer. It only
 * passes each request on to `shared` (the adapter's client as the gate hands it to the skill).
 */
function withSignal(shared, signal) {
  return {
    instance: shared.instance,
    signal,
    requireKey: () => shared.requireKey(),
    request: (method, path, options = {}) => shared.request(method, path, { ...options, signal }),
    listAll: (path, query, options = {}) => shared.listAll(path, query, { ...options, signal }),
  };
}

/**
 * Run `work` over `items` with at most `limit` at once; answers, in item order, `{ ok: true, value }`
 * or `{ ok: false, error }` (its message) per item, and `undefined` for an item never started:
 * once `stop()` answers true no new item is started (the ones running are awaited).
 */
export async function forEachLimited(items, limit, work, { stop = () => false } = {}) {
  const results = new Array(items.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const index = next++;
      try {
        results[index] = { ok: true, value: await work(items[index]) };
      } catch (error) {
        results[index] = { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
