#!/usr/bin/env node
import { main } from "../cli/main.js";

// The stdio MCP server: what Claude Code, Codex and other clients spawn.
main(["mcp", ...process.argv.slice(2)]).catch((error: unknown) => {
  process.stderr.write(`agent-tools-mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
