/** Calls to n8n's MCP tools from skills: the text content parsed as JSON when it is JSON. */

export async function callTool(adapter, name, args) {
  const result = await adapter.call(name, args);
  const texts = Array.isArray(result?.content) ? result.content.filter((c) => c?.type === "text").map((c) => c.text) : [];
  const text = texts.join("\n");
  if (result?.isError) {
    throw Object.assign(new Error(`n8n MCP tool '${name}' failed: ${text || "no message"}`), { code: "UPSTREAM_ERROR" });
  }
  if (result?.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
