import { skillContext } from "agent-tools-runtime/plugin";

/**
 * Calls to n8n's MCP tools from skills: the tool's value (structured content, JSON text parsed,
 * or plain text), through the kit; a result flagged isError is a SkillError naming the tool.
 */
export async function callTool(adapter, name, args, context) {
  return skillContext(adapter, context).call(name, args);
}
