import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { errorMessage, RuntimeSession, settingsFromEnv } from "./runtime-session.ts";

/**
 * agent-tools-runtime for pi: at load, open one MCP session with the runtime over Streamable HTTP,
 * list its facade tools (every page) and register each as a native pi tool with the facade's own
 * JSON Schema. Calls go to tools/call in that session (runtime-session.ts replaces a dropped one
 * and bounds each call by AGENT_TOOLS_PI_CALL_TIMEOUT_MS); a facade error becomes a pi tool error
 * whose message starts with the error code and the runtime's hint (a failed agent_tools_exec: its
 * exit code and stderr).
 */
export default async function agentToolsRuntime(pi: ExtensionAPI): Promise<void> {
  const session = new RuntimeSession(settingsFromEnv());
  // throws with the URL tried and the command that starts the runtime; pi reports it and goes on
  await session.connect();
  const tools = await session.listAllTools();

  for (const tool of tools) {
    pi.registerTool({
      name: tool.name,
      label: tool.annotations?.title ?? tool.title ?? tool.name,
      description: tool.description ?? tool.name,
      // the facade's schema as it is: TypeBox's Unsafe carries raw JSON Schema through
      parameters: Type.Unsafe<Record<string, unknown>>(tool.inputSchema),
      async execute(_toolCallId, params, signal) {
        const result = await session.callTool(tool.name, (params ?? {}) as Record<string, unknown>, signal);
        // throwing is how pi marks a tool result as an error (isError: true for the model)
        if (result.isError) throw new Error(errorMessage(result));
        return {
          content: result.content.flatMap((c) =>
            c.type === "text" ? [{ type: "text" as const, text: c.text }] : c.type === "image" ? [{ type: "image" as const, data: c.data, mimeType: c.mimeType }] : [{ type: "text" as const, text: JSON.stringify(c) }],
          ),
          details: { structuredContent: result.structuredContent },
        };
      },
    });
  }

  pi.on("session_shutdown", async () => {
    // every session this opened, including one still opening or a dropped one still closing
    await session.close();
  });
}
