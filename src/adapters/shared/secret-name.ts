/**
 * Names whose values are credentials even when written literally (as `mcpServers` configs often
 * do). On its own, not in mcp/child-env.ts: the runtime's redaction reads it at start, and
 * child-env.ts imports the MCP client package, which a start otherwise does not need.
 */
export const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;
