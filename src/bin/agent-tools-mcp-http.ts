#!/usr/bin/env node
import { runBin } from "../cli/run-bin.js";

// The Streamable HTTP MCP server, for clients that connect to a URL instead of spawning a process.
runBin("agent-tools-mcp-http", ["http"]);
