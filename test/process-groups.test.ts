import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { baseEnv, MCP_BIN, writePlugin } from "./helpers.js";
import { isRunning, sleep, STDIO_FIXTURE } from "./fixtures/mcp/support.js";

// Children started through a wrapper (`sh -c "node …; …"`) whose real process ignores SIGTERM
// and SIGINT: when the runtime is told to stop, the whole process group of each child goes,
// grandchild included (it used to be left running with ppid 1). One stdio MCP downstream and one
// CLI program in the middle of a call, for each of SIGTERM and SIGINT.

const node = JSON.stringify(process.execPath);

function setup(): { dir: string; config: string; cliPidFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-groups-"));
  const config = path.join(dir, "agent-tools.config.json");
  const wrapped = `${node} ${JSON.stringify(STDIO_FIXTURE)} --stubborn; echo wrapper-after >&2`;
  writeFileSync(config, JSON.stringify({ mcpServers: { wrapped: { command: "sh", args: ["-c", wrapped] } } }));
  const cliPidFile = path.join(dir, "cli-grandchild.pid");
  const stubborn = "for (const s of ['SIGTERM','SIGINT','SIGHUP']) process.on(s, () => {}); require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)";
  writePlugin(path.join(dir, "agent-tools-plugin-stubcli"), {
    name: "stubcli",
    prefix: "stubcli",
    description: "A CLI whose wrapped grandchild ignores SIGTERM (tests only)",
    adapter: {
      kind: "cli",
      program: "sh",
      allowlist: ["sh"],
      timeoutMs: 600_000,
      tools: [{ name: "linger", description: "Runs until killed", argv: ["-c", `${node} -e ${JSON.stringify(stubborn)} "$1"; echo after`, "sh", cliPidFile], readonly: true }],
    },
  });
  return { dir, config, cliPidFile };
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  describe(`${signal} to the runtime`, () => {
    it("ends the wrapped, SIGTERM-ignoring grandchildren of a stdio downstream and of a running CLI call", async () => {
      const { dir, config, cliPidFile } = setup();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MCP_BIN],
        env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }),
        cwd: dir,
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: "groups-test", version: "0.0.0" });
      await client.connect(transport);
      const runtimePid = transport.pid as number;
      const exited = new Promise<void>((resolve) => (transport.onclose = () => resolve()));

      const result = (await client.callTool({ name: "agent_tools_wrapped_call", arguments: { toolName: "pid", arguments: {} } })) as CallToolResult;
      const mcpGrandchild = Number(JSON.stringify(result.structuredContent ?? result.content).match(/\b(\d{2,})\b/)?.[1]);
      assert.ok(Number.isInteger(mcpGrandchild) && isRunning(mcpGrandchild), `the wrapped downstream runs: ${JSON.stringify(result)} ${stderr}`);
      const lingering = client.callTool({ name: "agent_tools_stubcli_call", arguments: { toolName: "linger", arguments: {} } }).catch(() => "ended");
      await until(() => existsSync(cliPidFile) && readFileSync(cliPidFile, "utf8") !== "", "the CLI grandchild to start");
      const cliGrandchild = Number(readFileSync(cliPidFile, "utf8"));
      assert.ok(isRunning(cliGrandchild));

      process.kill(runtimePid, signal);
      await Promise.race([exited, sleep(10_000)]);
      await until(() => !isRunning(runtimePid), "the runtime to exit");
      // The shutdown grace is 5 s, and the exit handler SIGKILLs what is left: nothing may survive it.
      await until(() => !isRunning(mcpGrandchild) && !isRunning(cliGrandchild), "both grandchildren to be gone", 30_000).catch(() => undefined);
      const survivors = [mcpGrandchild, cliGrandchild].filter(isRunning);
      for (const pid of survivors) process.kill(pid, "SIGKILL"); // leave the machine clean even on failure
      assert.deepEqual(survivors, [], `no grandchild outlives the runtime (stderr: ${stderr.slice(-2000)})`);
      assert.equal(await lingering, "ended");
      await client.close().catch(() => undefined);
    });
  });
}
