import { writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./helpers.js";

/**
 * A config with three real MCP servers from npm and no description for any of them (the facade
 * learns what each is about): memory (knowledge graph), files (server-filesystem on `dir`) and
 * everything (the reference server).
 */
export function fleetConfig(dir: string): string {
  const servers = path.join(ROOT, "node_modules", "@modelcontextprotocol");
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        memory: { command: process.execPath, args: [path.join(servers, "server-memory", "dist", "index.js")], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
        files: { command: process.execPath, args: [path.join(servers, "server-filesystem", "dist", "index.js"), dir] },
        everything: { command: process.execPath, args: [path.join(servers, "server-everything", "dist", "index.js")] },
      },
    }),
  );
  return config;
}
