import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { baseEnv, callJson, connect, ROOT, type Connected } from "./helpers.js";
import { lockHolder } from "./lock-holder.js";

// The embedded memory plugin runs the reference memory server, which reads its whole file,
// changes it and writes it back with no lock: writes made at once kept only the last one (10
// parallel create_entities answered ok and left 4 entities; two runtimes on one file, 5 + 5, left
// 8). Its calls now go one at a time in a runtime (maxConcurrentCalls: 1) and its writes take a
// lock beside the file (lockFile) against the other runtimes. Real processes throughout: the SDK
// client against the built server, the real memory server, a real second runtime, and a real
// process holding the lock. Everything lives under a temp XDG_STATE_HOME (the default file's place).

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-memory-serialize-")));
after(() => rmSync(scratch, { recursive: true, force: true }));
/** No plugin folder beyond the fleet's own (the fixture plugins would start nothing, but list). */
const noPlugins = path.join(scratch, "no-plugins");
mkdirSync(noPlugins);

interface Fleet {
  /** The memory file the embedded plugin uses (the default one under this fleet's XDG_STATE_HOME). */
  memoryFile: string;
  env: Record<string, string>;
}

/** A fleet of its own: the embedded default with its memory file under a fresh XDG_STATE_HOME. */
function fleet(name: string, extra: Record<string, string> = {}): Fleet {
  const home = path.join(scratch, name);
  const project = path.join(home, "project");
  mkdirSync(project, { recursive: true });
  const config = path.join(home, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ plugins: { embedded: true } }));
  const stateHome = path.join(home, "state");
  return {
    memoryFile: path.join(stateHome, "agent-tools-runtime", "memory.jsonl"),
    env: {
      AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0",
      AGENT_TOOLS_CONFIG: config,
      AGENT_TOOLS_CONFIRM: "flag",
      AGENT_TOOLS_FS_ROOT: project,
      HOME: home,
      XDG_STATE_HOME: stateHome,
      XDG_CONFIG_HOME: path.join(home, "config"),
      XDG_CACHE_HOME: path.join(home, "cache"),
      ...extra,
    },
  };
}

function create(server: Connected, name: string): ReturnType<typeof callJson> {
  return callJson(server.client, "agent_tools_memory_call", { toolName: "create_entities", arguments: { entities: [{ name, entityType: "thing", observations: ["seen"] }] }, confirm: true });
}

async function entityNames(server: Connected): Promise<string[]> {
  const { payload } = await callJson(server.client, "agent_tools_memory_call", { toolName: "read_graph", arguments: {} });
  assert.equal(payload.ok, true, JSON.stringify(payload));
  const entities = (payload.result as { entities: { name: string }[] }).entities;
  return entities.map((e) => e.name).sort();
}

/** The entity names the memory file itself holds (one JSON object a line). */
function namesInFile(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; name: string })
    .filter((item) => item.type === "entity")
    .map((item) => item.name)
    .sort();
}

const range = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("the embedded memory plugin's writes made at once", () => {
  it("10 parallel create_entities in one runtime: every one is in the graph and the file", async () => {
    const { env, memoryFile } = fleet("one-runtime");
    const server = await connect(noPlugins, env);
    try {
      const names = range("one", 10);
      const answers = await Promise.all(names.map((name) => create(server, name)));
      for (const { payload } of answers) assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.deepEqual(await entityNames(server), names);
      assert.deepEqual(namesInFile(memoryFile), names);
    } finally {
      await server.close();
    }
  });

  it("two runtimes on one file, 5 + 5 create_entities at once: all 10 are kept", async () => {
    const { env, memoryFile } = fleet("two-runtimes");
    const [a, b] = await Promise.all([connect(noPlugins, env), connect(noPlugins, env)]);
    try {
      // Each server started, so the ten calls below overlap in the two memory servers.
      await Promise.all([entityNames(a), entityNames(b)]);
      const fromA = range("a", 5);
      const fromB = range("b", 5);
      const answers = await Promise.all([...fromA.map((name) => create(a, name)), ...fromB.map((name) => create(b, name))]);
      for (const { payload } of answers) assert.equal(payload.ok, true, JSON.stringify(payload));
      const all = [...fromA, ...fromB].sort();
      assert.deepEqual(namesInFile(memoryFile), all);
      assert.deepEqual(await entityNames(a), all);
      assert.deepEqual(await entityNames(b), all);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a lock left by a runtime that was killed holding it is taken over: the write goes through", async () => {
    const { env, memoryFile } = fleet("killed-holder");
    mkdirSync(path.dirname(memoryFile), { recursive: true });
    const holder = await lockHolder(`${memoryFile}.lock`);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const server = await connect(noPlugins, env);
    try {
      const began = Date.now();
      const { payload } = await create(server, "after-crash");
      assert.equal(payload.ok, true, JSON.stringify(payload));
      // Honoured no longer than its stale time (10 s) after its last refresh; well within the call's deadline.
      assert.ok(Date.now() - began < 30_000, `took ${Date.now() - began} ms`);
      assert.deepEqual(namesInFile(memoryFile), ["after-crash"]);
    } finally {
      await server.close();
    }
  });

  it("a lock another live process holds past the call's deadline: an error naming the lock, and nothing written", async () => {
    const { env, memoryFile } = fleet("busy-holder", { AGENT_TOOLS_CALL_TIMEOUT_MS: "3000" });
    mkdirSync(path.dirname(memoryFile), { recursive: true });
    const lockFile = `${memoryFile}.lock`;
    const holder = await lockHolder(lockFile);
    const server = await connect(noPlugins, env);
    try {
      const { payload, isError } = await create(server, "blocked");
      assert.equal(isError, true);
      assert.equal(payload.ok, false);
      assert.equal(payload.error?.code, "UPSTREAM_TIMEOUT", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", /was not sent: it waited \d+ ms for the lock /);
      assert.ok(payload.error?.message.includes(lockFile), payload.error?.message);
      assert.match(payload.error?.message ?? "", /which another process held all that time/);
      assert.match(payload.error?.hint ?? "", /taken over once it is 10 s old/);
      // Reads take no lock (the server lists them readOnlyHint: true): the graph is still readable, and empty.
      assert.deepEqual(await entityNames(server), []);
    } finally {
      holder.kill("SIGKILL");
      await server.close();
    }
    // The call the caller was told failed never ran afterwards.
    const after = await connect(noPlugins, env);
    try {
      assert.deepEqual(await entityNames(after), []);
    } finally {
      await after.close();
    }
  });
});

describe("maxConcurrentCalls and lockFile on an mcpServers entry", () => {
  it("a config entry running the memory server with both: 10 parallel writes all kept", async () => {
    const home = path.join(scratch, "config-entry");
    mkdirSync(home, { recursive: true });
    const memoryFile = path.join(home, "graph.jsonl");
    const config = path.join(home, "agent-tools.config.json");
    const serverMemory = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [serverMemory], env: { MEMORY_FILE_PATH: memoryFile }, maxConcurrentCalls: 1, lockFile: "./graph.jsonl.lock" } } }));
    const server = await connect(noPlugins, baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CONFIRM: "flag" }));
    try {
      const names = range("n", 10);
      const answers = await Promise.all(
        names.map((name) => callJson(server.client, "agent_tools_notes_call", { toolName: "create_entities", arguments: { entities: [{ name, entityType: "thing", observations: [] }] }, confirm: true })),
      );
      for (const { payload } of answers) assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.deepEqual(namesInFile(memoryFile), names);
    } finally {
      await server.close();
    }
  });
});

describe("an mcpServers entry running the memory server without either field (protective defaults)", () => {
  const serverMemory = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");

  it("8 parallel create_entities through the user's own entry: all 8 are kept, and the start says once why", async () => {
    // The entry a user pastes from their client's config; loading it turns the embedded plugins off.
    const home = path.join(scratch, "pasted-entry");
    mkdirSync(home, { recursive: true });
    const memoryFile = path.join(home, "memory.jsonl");
    const config = path.join(home, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { memory: { command: "node", args: [serverMemory], env: { MEMORY_FILE_PATH: memoryFile } } } }));
    const server = await connect(noPlugins, baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CONFIRM: "flag" }));
    try {
      const names = range("p", 8);
      const answers = await Promise.all(names.map((name) => create(server, name)));
      for (const { payload } of answers) assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.deepEqual(namesInFile(memoryFile), names);
      assert.deepEqual(await entityNames(server), names);
      const said = server.stderr().split("\n").filter((line) => line.includes("runs @modelcontextprotocol/server-memory"));
      assert.equal(said.length, 1, server.stderr());
      assert.ok(said[0]?.includes(`config entry 'memory' runs @modelcontextprotocol/server-memory (it rewrites its whole file on each write, so writes made at once are lost): its calls go one at a time and its writes hold the lock ${memoryFile}.lock. Set maxConcurrentCalls or lockFile in the entry to choose otherwise`), said[0]);
    } finally {
      await server.close();
    }
  });

  it("the bin by name in one runtime and the embedded plugin in another, on one file: 4 + 4 at once, all 8 kept (one lock beside the file)", async () => {
    const shared = fleet("entry-and-embedded");
    const memoryFile = path.join(scratch, "entry-and-embedded", "shared-graph.jsonl");
    // Runtime A: the embedded memory plugin, pointed at the file by AGENT_TOOLS_MEMORY_FILE.
    const embedded = { ...shared.env, AGENT_TOOLS_MEMORY_FILE: memoryFile };
    // Runtime B: a config entry that starts `mcp-server-memory` from PATH, on the same file.
    const config = path.join(scratch, "entry-and-embedded", "entry.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { memory: { command: "mcp-server-memory", env: { MEMORY_FILE_PATH: memoryFile } } } }));
    const bins = path.join(ROOT, "node_modules", ".bin");
    const [a, b] = await Promise.all([connect(noPlugins, embedded), connect(noPlugins, baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CONFIRM: "flag", PATH: `${bins}${path.delimiter}${process.env.PATH ?? ""}` }))]);
    try {
      // Both memory servers started, so the writes below overlap in the two of them.
      await Promise.all([entityNames(a), entityNames(b)]);
      const fromA = range("a", 4);
      const fromB = range("b", 4);
      const answers = await Promise.all([...fromA.map((name) => create(a, name)), ...fromB.map((name) => create(b, name))]);
      for (const { payload } of answers) assert.equal(payload.ok, true, JSON.stringify(payload));
      const all = [...fromA, ...fromB].sort();
      assert.deepEqual(namesInFile(memoryFile), all);
      assert.deepEqual(await entityNames(b), all);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
