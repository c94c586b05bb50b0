/**
 * Whether a downstream's error says the tool it was sent does not exist: "Unknown tool: x" (an
 * error result, as many servers answer), "Tool x not found" (the MCP SDK's JSON-RPC error), "no
 * such tool". The name must be in the text, so an unknown *thing* the tool looked up ("user 42
 * not found") does not count. A wrong guess costs one listing of the plugin's tools, no more:
 * the answer changes only when the fresh list lacks the tool.
 */
const UNKNOWN = /\b(?:unknown|not found|no such|does not exist|doesn't exist|unrecogni[sz]ed|not registered)\b/i;

export function saysToolUnknown(text: string, toolName: string): boolean {
  return text.length < 2000 && text.includes(toolName) && UNKNOWN.test(text);
}
