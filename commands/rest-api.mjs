// One REST API as a command, configured on the host:
//   AGENT_API_BASE_URL (required), AGENT_API_TOKEN (bearer, optional).
// PATH is resolved against the base URL and can never leave it (the runtime's URL guard).
// GET, HEAD and OPTIONS run as they are; POST, PUT, PATCH and DELETE need --confirm.

export const name = "rest-api";
export const description = "A REST API (AGENT_API_BASE_URL): api-request [--confirm] METHOD PATH [JSON]; writes need --confirm.";
export const variables = [
  { name: "AGENT_API_BASE_URL", description: "the API's base URL; every PATH stays under it", required: true },
  { name: "AGENT_API_TOKEN", description: "bearer token sent with every request", secret: true },
];
export const commands = ["api-request"];

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const USAGE = "api-request [--confirm] METHOD PATH [JSON]   (JSON body may also come on stdin)";

export function setup(host) {
  let made;
  const requester = () => (made ??= host.lib.restRequesterFromEnv(host.env, { log: host.log }));
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
          let payload;
          const text = body ?? (io.stdin.trim() ? io.stdin : undefined);
          if (text !== undefined) {
            try {
              payload = JSON.parse(text);
            } catch (error) {
              return host.output.usage("api-request", `the body is not JSON (${error.message})`, USAGE);
            }
          }
          if (!SAFE.has(verb) && !confirm) return host.output.confirmRequired("api-request", `${verb} ${path}`);
          try {
            const response = await requester().request(verb, path, payload, { signal: io.signal });
            const ok = response.status < 400;
            return host.output.json({ ok, ...response }, ok ? host.exit.OK : host.exit.FAILED);
          } catch (error) {
            return host.output.error("api-request", error);
          }
        },
      },
    ],
  };
}
