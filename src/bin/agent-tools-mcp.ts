#!/usr/bin/env node
import { main } from "../cli/main.js";

// The stdio MCP server: what Claude Code, Codex and other clients spawn.
main(["mcp", ...process.argv.slice(2)]).catch((error: unknown) => {
  const expected = error instanceof Error && (error.name === "ConfigError" || error.name === "ManifestError");
  process.stderr.write(`agent-tools-mcp: ${error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
  process.exit(1);
});
