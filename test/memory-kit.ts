import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createFacadeServer } from "../src/facade/server.js";
import type { Runtime } from "../src/runtime/runtime.js";
import type { Session } from "../src/runtime/session.js";
import type { Payload } from "./helpers.js";

/**
 * The in-process tier: the real facade server and the SDK client linked by the SDK's
 * InMemoryTransport. No process is spawned for the facade (downstream servers still are, when a
 * plugin is an MCP server), so these tests stay fast and steady on a loaded machine.
 */

export interface LinkedFacade {
  client: Client;
  session: Session;
  /** Call a facade tool; the answer's JSON (from the one text block) and whether it is an error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ payload: Payload; isError: boolean; text: string }>;
  close(): Promise<void>;
}

export async function linkFacade(runtime: Runtime, id = "test"): Promise<LinkedFacade> {
  const session = runtime.createSession(id);
  const server = createFacadeServer({ runtime, session });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: `test-${id}`, version: "0.0.0" });
  await client.connect(clientSide);
  return {
    client,
    session,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = result.content[0];
      if (!first || first.type !== "text") throw new Error(`no text content from ${name}`);
      return { payload: JSON.parse(first.text) as Payload, isError: result.isError === true, text: first.text };
    },
    close: () => client.close(),
  };
}
