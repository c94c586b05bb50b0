import { defineMcpClientConnection } from "eve/connections";

/**
 * eve connection to a running agent-tools-runtime over Streamable HTTP. The file name makes the
 * connection name: its tools reach the model as agent-tools-runtime__<tool> through eve__search.
 *
 * AGENT_TOOLS_HTTP_URL picks the endpoint (default: the runtime's own default address);
 * AGENT_TOOLS_HTTP_TOKEN, when the runtime was started with one, is sent as a bearer token.
 */

const url = process.env.AGENT_TOOLS_HTTP_URL ?? "http://127.0.0.1:8321/mcp";
const hasToken = Boolean(process.env.AGENT_TOOLS_HTTP_TOKEN);

export default defineMcpClientConnection({
  url,
  // written for the model: it is what eve shows next to the connection's name
  description:
    "agent-tools-runtime: many services (MCP servers, REST APIs, CLIs) behind a few tools. " +
    "Call agent_tools_help to see the plugins; find a plugin's tool with its _discover tool and a few words, " +
    "then run it with its _call tool. Tools that change data need confirm: true; every error carries a hint to follow.",
  ...(hasToken
    ? {
        auth: {
          // one shared credential for the agent (eve 1.x refuses the older name, credentialOwner)
          principalType: "app" as const,
          // read on every connection attempt, so a rotated token is picked up without a rebuild
          getToken: async () => ({ token: process.env.AGENT_TOOLS_HTTP_TOKEN ?? "" }),
        },
      }
    : {}),
});
