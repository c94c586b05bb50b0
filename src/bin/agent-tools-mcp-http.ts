#!/usr/bin/env node
import { main } from "../cli/main.js";

// The Streamable HTTP MCP server, for clients that connect to a URL instead of spawning a process.
main(["http", ...process.argv.slice(2)]).catch((error: unknown) => {
  const expected = error instanceof Error && ["ConfigError", "ManifestError", "HttpOptionsError"].includes(error.name);
  process.stderr.write(`agent-tools-mcp-http: ${error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
  process.exit(1);
});
