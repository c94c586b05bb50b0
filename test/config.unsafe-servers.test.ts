import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { parseConfig } from "../src/config/config.js";
import { manifestsFromConfig } from "../src/config/mcp-servers.js";

// A config entry that runs the reference memory server gets maxConcurrentCalls 1 and a lockFile
// (config/unsafe-servers.ts) however the entry starts it, unless it sets those fields itself:
// without them, 8 parallel create_entities answered ok and the file kept 1. The writes themselves
// are tested through the built server in memory.serialized-writes.test.ts; here, which entries
// are recognised and which lock each gets, read from real config text and real files on disk.

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-unsafe-servers-")));
after(() => rmSync(scratch, { recursive: true, force: true }));
const FILE = path.join(scratch, "agent-tools.config.json");
const STATE = path.join(scratch, "state");
const ENV = { XDG_STATE_HOME: STATE, HOME: scratch };
/** The lock of the entries whose memory file only their server knows (npx's cache, its own dist folder, a container). */
const SHARED = path.join(STATE, "agent-tools-runtime", "locks", "modelcontextprotocol-server-memory.lock");

/** The adapter block (and the start-up sentence) each entry of `servers` becomes. */
function adapters(servers: Record<string, unknown>): Record<string, { adapter: Record<string, unknown>; said: string | undefined }> {
  const manifests = manifestsFromConfig(parseConfig(FILE, { mcpServers: servers }, undefined, ENV), new Set(), ENV);
  return Object.fromEntries(manifests.map((m) => [m.name, { adapter: m.adapter as Record<string, unknown>, said: m.protectiveDefaults }]));
}

const memoryFile = path.join(scratch, "graph.jsonl");

describe("config entries that run the memory server get a cap and a lock", () => {
  it("recognises npx and its version specs, a node_modules path, the bin by name or path, a shell line, and the docker image", () => {
    const found = adapters({
      npx: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
      pinned: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory@2026.8.31"], env: { MEMORY_FILE_PATH: memoryFile } },
      modules: { command: "node", args: ["/opt/app/node_modules/@modelcontextprotocol/server-memory/dist/index.js"], env: { MEMORY_FILE_PATH: memoryFile } },
      windows: { command: "node", args: ["C:\\app\\node_modules\\@modelcontextprotocol\\server-memory\\dist\\index.js"] },
      bin: { command: "mcp-server-memory", env: { MEMORY_FILE_PATH: memoryFile } },
      binPath: { command: "/opt/app/node_modules/.bin/mcp-server-memory.cmd" },
      shell: { command: "sh", args: ["-c", "exec npx -y @modelcontextprotocol/server-memory"] },
      docker: { command: "docker", args: ["run", "-i", "--rm", "-v", "claude-memory:/app/dist", "-e", "MEMORY_FILE_PATH=/app/dist/memory.jsonl", "mcp/memory:latest"], env: { MEMORY_FILE_PATH: "/app/dist/memory.jsonl" } },
    });
    for (const [key, { adapter }] of Object.entries(found)) assert.equal(adapter.maxConcurrentCalls, 1, `${key}: ${JSON.stringify(adapter)}`);
    // An absolute MEMORY_FILE_PATH: the lock beside that file, the very one the embedded memory plugin takes for it.
    for (const key of ["pinned", "modules", "bin"]) assert.equal(found[key]?.adapter.lockFile, `${memoryFile}.lock`, key);
    // Where only the server knows its file (npx's cache, its dist folder, inside a container whose paths are not this machine's): one shared lock.
    for (const key of ["npx", "windows", "binPath", "shell", "docker"]) assert.equal(found[key]?.adapter.lockFile, SHARED, key);
    assert.equal(
      found.npx?.said,
      `@modelcontextprotocol/server-memory (it rewrites its whole file on each write, so writes made at once are lost): its calls go one at a time and its writes hold the lock ${SHARED}`,
    );
  });

  it("recognises a script of a copy kept elsewhere by the package.json above it, and a relative path against the config's folder", () => {
    const clone = path.join(scratch, "servers", "src", "memory");
    mkdirSync(path.join(clone, "dist"), { recursive: true });
    writeFileSync(path.join(clone, "package.json"), JSON.stringify({ name: "@modelcontextprotocol/server-memory", bin: { "mcp-server-memory": "dist/index.js" } }));
    writeFileSync(path.join(clone, "dist", "index.js"), "");
    symlinkSync(path.join(clone, "dist", "index.js"), path.join(scratch, "memory-server.js"));
    const found = adapters({
      clone: { command: "node", args: [path.join(clone, "dist", "index.js")] },
      relative: { command: "node", args: ["./servers/src/memory/dist/index.js"] },
      linked: { command: "node", args: ["memory-server.js"], cwd: "." },
    });
    for (const key of ["clone", "relative", "linked"]) assert.deepEqual(found[key]?.adapter.maxConcurrentCalls, 1, key);
  });

  it("the lock follows a ${VAR} memory file as the child's value does; a relative one is the server's own (its dist folder): the shared lock", () => {
    const found = adapters({
      templated: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "${HOME}/notes/memory.jsonl" } },
      relative: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "notes.jsonl" } },
    });
    assert.equal(found.templated?.adapter.lockFile, "${HOME}/notes/memory.jsonl.lock");
    assert.equal(found.relative?.adapter.lockFile, SHARED);
  });

  it("keeps the fields an entry sets itself, each on its own, and says only what it added", () => {
    const found = adapters({
      both: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], maxConcurrentCalls: 4, lockFile: "/var/lock/mem.lock" },
      cap: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: memoryFile }, maxConcurrentCalls: 4 },
      lock: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], lockFile: "/var/lock/mem.lock" },
    });
    assert.equal(found.both?.adapter.maxConcurrentCalls, 4);
    assert.equal(found.both?.adapter.lockFile, "/var/lock/mem.lock");
    assert.equal(found.both?.said, undefined, "an entry that set both is not said at start");
    assert.equal(found.cap?.adapter.maxConcurrentCalls, 4);
    assert.equal(found.cap?.adapter.lockFile, `${memoryFile}.lock`);
    assert.match(found.cap?.said ?? "", /: its writes hold the lock \S+graph\.jsonl\.lock$/);
    assert.equal(found.lock?.adapter.maxConcurrentCalls, 1);
    assert.equal(found.lock?.adapter.lockFile, "/var/lock/mem.lock");
    assert.match(found.lock?.said ?? "", /: its calls go one at a time$/);
  });

  it("leaves other servers alone: another package, a look-alike name, a folder named memory, an HTTP entry, an image run without a container runner", () => {
    const found = adapters({
      filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/mcp/memory"] },
      lookalike: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory-plus"] },
      otherScope: { command: "npx", args: ["-y", "@acme/server-memory"] },
      remote: { url: "https://memory.example/mcp" },
      notDocker: { command: "ls", args: ["mcp/memory"] },
    });
    for (const [key, { adapter, said }] of Object.entries(found)) {
      assert.equal(adapter.maxConcurrentCalls, undefined, key);
      assert.equal(adapter.lockFile, undefined, key);
      assert.equal(said, undefined, key);
    }
  });
});
