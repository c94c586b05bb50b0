#!/usr/bin/env node
import { runBin } from "../cli/run-bin.js";

// The stdio MCP server: what Claude Code, Codex and other clients spawn.
runBin("agent-tools-mcp", ["mcp"]);
