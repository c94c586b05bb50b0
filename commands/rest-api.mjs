// One REST API as a command, configured on the host:
//   AGENT_API_BASE_URL (required), AGENT_API_TOKEN (bearer, optional).
// PATH is resolved against the base URL and can never leave it (the runtime's URL guard).
// GET, HEAD and OPTIONS run as they are; POST, PUT, PATCH and DELETE need --confirm. Requests
// go through the runtime's one call path (an in-memory plugin 'rest-api' of the session).

export const name = "rest-api";
export const description = "A REST API (AGENT_API_BASE_URL): api-request [--confirm] METHOD PATH [JSON]; writes need --confirm.";
export const variables = [
  { name: "AGENT_API_BASE_URL", description: "the API's base URL; every PATH stays under it", required: true },
  { name: "AGENT_API_TOKEN", description: "bearer token sent with every request", secret: true },
];
export const commands = ["api-request"];

const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];
const USAGE = "api-request [--confirm] METHOD PATH ['JSON']   (the JSON body in single quotes, or on stdin)";

/**
 * The API as an in-memory plugin of the session, one tool per HTTP method: the runtime's pipeline
 * then validates, gates (GET, HEAD and OPTIONS are its read-only tools), applies the deadline and
 * the loop breaker, as for any plugin.
 */
function apiAdapter(requester) {
  const schema = { type: "object", properties: { path: { type: "string" }, body: {} }, required: ["path"], additionalProperties: false };
  return {
    async listTools() {
      return { tools: METHODS.map((m) => ({ name: m.toLowerCase(), description: `send ${m} PATH to the API`, inputSchema: schema })) };
    },
    async call(name, args, ctx) {
      const response = await requester.request(name.toUpperCase(), args.path, args.body, { signal: ctx?.signal });
      if (response.status >= 400) {
        const error = new Error(`${name.toUpperCase()} ${args.path} answered HTTP ${response.status}`);
        error.code = "UPSTREAM_ERROR";
        error.details = response;
        throw error;
      }
      return response;
    },
  };
}

/** A word that can only be an option: a JSON body never starts with a dash and a letter. */
const OPTION = /^--?[A-Za-z]/;
const QUOTE_BODY = `put the whole body in single quotes, e.g. api-request --confirm POST /items '{"name": "x"}'`;

/**
 * An api-request line's words: { confirm, method, path, body } or { problem } saying what was
 * wrong and how to write it. The usual slip is an unquoted JSON body: the shell splits it at its
 * spaces and removes its double quotes, so it arrives as several words or as `{name:x}`.
 */
function parses(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function readRequestWords(args) {
  let confirm = false;
  const words = [];
  for (const arg of args) {
    if (arg === "--confirm") {
      confirm = true;
      continue;
    }
    // As on plugin command lines (argv.ts): one spelling, so a model learns one.
    if (arg.startsWith("--confirm=")) return { problem: `--confirm takes no value (got '${arg.length > 40 ? `${arg.slice(0, 40)}…` : arg}'): write --confirm` };
    if (OPTION.test(arg)) return { problem: `unknown option '${arg.length > 40 ? `${arg.slice(0, 40)}…` : arg}': api-request takes only --confirm` };
    words.push(arg);
  }
  const [method, path, body, ...extra] = words;
  if (!method || !path) return { problem: "give a METHOD and a PATH, e.g. api-request GET /items" };
  if (extra.length) {
    return /^\s*[[{]/.test(body) && !parses(body)
      ? { problem: `the JSON body came as ${extra.length + 1} words (the shell split it at its spaces): ${QUOTE_BODY}` }
      : { problem: `unexpected word '${extra[0].length > 40 ? `${extra[0].slice(0, 40)}…` : extra[0]}' after the body: a request takes one METHOD, one PATH and at most one JSON body` };
  }
  return { confirm, method, path, body };
}

export function setup(host) {
  const plugin = host.plugin({
    prefix: "rest-api",
    name: "the API at AGENT_API_BASE_URL",
    description: "A REST API",
    client: () => apiAdapter(host.lib.restRequesterFromEnv(host.env, { log: host.log })),
    readonlyTools: ["get", "head", "options"],
  });
  return {
    commands: [
      {
        name: "api-request",
        summary: "send one request to the API and print {status, data} as JSON",
        usage: USAGE,
        async run(args, io) {
          if (args[0] === "--help" || args[0] === "-h") return host.output.text(`usage: ${USAGE}\n`);
          const read = readRequestWords(args);
          if (read.problem) return host.output.usage("api-request", read.problem, USAGE);
          const { confirm, method, path, body } = read;
          const verb = method.toUpperCase();
          if (!METHODS.includes(verb)) return host.output.usage("api-request", `'${method}' is not an HTTP method (${METHODS.join(", ")})`, USAGE);
          let payload;
          const text = body ?? (io.stdin.trim() ? io.stdin : undefined);
          if (text !== undefined && (verb === "GET" || verb === "HEAD")) {
            const from = body === undefined ? " (one came on stdin)" : "";
            return host.output.usage("api-request", `${verb} takes no body${from}, and nothing was sent: put the values in PATH's query, e.g. api-request ${verb} '/items?page=2'`, USAGE);
          }
          if (text !== undefined) {
            try {
              payload = JSON.parse(text);
            } catch (error) {
              // Double quotes gone from a body typed with braces: the shell took them (unquoted).
              const unquoted = body !== undefined && /[[{]/.test(body) && !body.includes('"') ? `; unquoted, the shell removed its double quotes: ${QUOTE_BODY}` : "";
              return host.output.usage("api-request", `the body is not JSON (${error.message})${unquoted}`, USAGE);
            }
          }
          const outcome = await plugin.call(verb.toLowerCase(), { path, ...(payload !== undefined ? { body: payload } : {}) }, { confirm, signal: io.signal });
          if (outcome.isError) return host.output.outcome("api-request", outcome);
          return host.output.json({ ok: true, ...outcome.payload.result });
        },
      },
    ],
    close: () => plugin.close(),
  };
}
