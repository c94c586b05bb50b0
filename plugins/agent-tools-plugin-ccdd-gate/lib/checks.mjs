// Shared by the skills (this folder is not scanned for skills): the check names and how an MCP
// tool result becomes either a parsed report or an error message.

export const CHECKS = [
  "measure_complexity",
  "check_signature",
  "check_purity",
  "check_asserts",
  "check_bare_except",
  "check_mutable_defaults",
  "check_none_cmp",
  "scan_guardrails",
  "scan_dependencies",
];

/** An MCP CallToolResult → its JSON report; a result flagged isError throws with the server's text. */
export function reportOf(result) {
  if (!result || typeof result !== "object" || !Array.isArray(result.content)) return result;
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
  if (result.isError) throw new Error(text || "the check reported an error");
  if (result.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
