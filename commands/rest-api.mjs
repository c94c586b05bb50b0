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
const USAGE = "api-request [--confirm] METHOD PATH [JSON]   (JSON body may also come on stdin)";

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
          const confirm = args.includes("--confirm");
          const words = args.filter((a) => a !== "--confirm");
          const [method, path, body, ...extra] = words;
          if (!method || !path) return host.output.usage("api-request", "give a METHOD and a PATH, e.g. api-request GET /items", USAGE);
          if (extra.length) return host.output.usage("api-request", `unexpected word '${extra[0]}'`, USAGE);
          const verb = method.toUpperCase();
          if (!METHODS.includes(verb)) return host.output.usage("api-request", `'${method}' is not an HTTP method (${METHODS.join(", ")})`, USAGE);
          let payload;
          const text = body ?? (io.stdin.trim() ? io.stdin : undefined);
          if (text !== undefined) {
            try {
              payload = JSON.parse(text);
            } catch (error) {
              return host.output.usage("api-request", `the body is not JSON (${error.message})`, USAGE);
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
