import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Pieces of bench/perf.ts: processes driven by the SDK client, stats, /proc readings. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BENCH_FIXTURES = path.join(ROOT, "bench", "fixtures");
export const MCP_BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp.js");
export const HTTP_BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp-http.js");
export const ONE_TOOL_SERVER = path.join(BENCH_FIXTURES, "one-tool-server.mjs");
export const CATALOG_SERVER = path.join(BENCH_FIXTURES, "catalog-server.mjs");
export const COUNT_MODULES = path.join(BENCH_FIXTURES, "count-modules.mjs");
export const SDK_PROXY = path.join(BENCH_FIXTURES, "sdk-proxy.mjs");

export const EVERYTHING_SERVER = path.join(
  path.dirname(createRequire(path.join(ROOT, "package.json")).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

export interface Stats {
  min: number;
  median: number;
}

export function stats(values: readonly number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0] ?? NaN, median };
}

/** Stats of the best rounds: "higher is better" figures (throughput) take the max as their best. */
export function statsHigh(values: readonly number[]): Stats {
  const s = stats(values);
  return { min: Math.max(...values), median: s.median };
}

export function fmt(value: number, digits = 3): string {
  return Number.isFinite(value) ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "n/a";
}

/** A clean environment: no AGENT_TOOLS_* settings and no credentials of the bench host leak in. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = ["PATH", "HOME", "LANG", "TMPDIR", "SystemRoot", "USERPROFILE", "APPDATA", "LOCALAPPDATA"];
  const env: Record<string, string> = {};
  for (const key of keep) if (process.env[key] !== undefined) env[key] = process.env[key]!;
  return { ...env, AGENT_TOOLS_LOG: "warn", ...extra };
}

export function tempDir(label: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `agent-tools-perf-${label}-`));
}

export interface Spawned {
  client: Client;
  pid: number;
  stderr: () => string;
  close: () => Promise<void>;
}

/** Spawn a stdio MCP server and connect the SDK client to it (initialize done). */
export async function spawnClient(args: string[], env: Record<string, string>, cwd: string = ROOT): Promise<Spawned> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "agent-tools-perf", version: "0.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid ?? -1, stderr: () => stderr, close: () => client.close() };
}

export function textOf(result: unknown): string {
  const first = (result as CallToolResult).content?.[0];
  return first && first.type === "text" ? first.text : "";
}

/** The JSON answer of a facade tool (text form). */
export function payloadOf(result: unknown): Record<string, unknown> {
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

/** Resident set size of a process, MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time a process has used so far, ms (Linux /proc; user + system, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** A process's CPU so far (ms), with each of its children's (looked up before the timing starts: the /proc scan is not timed) and this bench process's. */
export interface CpuMark {
  pid: number;
  /** The CPU so far of each child (a wrapper's downstream servers), by pid. */
  children: Map<number, number>;
  own: number;
  client: number;
}

/** A process's CPU so far (ms), 0 once it has ended (a child may end between the /proc scan and the read). */
export function cpuOf(pid: number): number {
  try {
    return cpuMs(pid);
  } catch {
    return 0;
  }
}

export function cpuMark(pid: number, children: Iterable<number> = childrenOf(pid)): CpuMark {
  const own = cpuMs(pid);
  const perChild = new Map([...children].map((child) => [child, cpuOf(child)] as const));
  const usage = process.cpuUsage();
  return { pid, children: perChild, own, client: (usage.user + usage.system) / 1000 };
}

/**
 * CPU per call since `before`. The children are looked up again: a downstream server that ended or
 * started in between (a restart) ran only part of the timing, and its CPU is left out, so the
 * downstream figure is under-reported; that is said on stderr rather than passed over.
 */
export function perCall(before: CpuMark, n: number, warn: (message: string) => void = console.error): { cpuUs: number; downstreamUs: number; clientUs: number } {
  const usage = process.cpuUsage();
  const now = childrenOf(before.pid);
  const throughout = now.filter((child) => before.children.has(child));
  if (throughout.length !== now.length || throughout.length !== before.children.size) {
    const ended = [...before.children.keys()].filter((child) => !now.includes(child));
    const started = now.filter((child) => !before.children.has(child));
    warn(
      `perf: the downstream servers of ${before.pid} changed during the timing (ended: ${ended.join(", ") || "none"}; started: ${started.join(", ") || "none"}): ` +
        "the downstream CPU per call counts only those that ran throughout, so it is under-reported",
    );
  }
  const downstreamMs = throughout.reduce((sum, child) => sum + cpuOf(child) - before.children.get(child)!, 0);
  const us = (ms: number) => (ms * 1000) / n;
  return { cpuUs: us(cpuMs(before.pid) - before.own), downstreamUs: us(downstreamMs), clientUs: us((usage.user + usage.system) / 1000 - before.client) };
}

/** CPU time (user + system, ms) in a /proc `stat` file: a process's, or a thread's (`/proc/self/task/ID/stat`). */
export function statCpuMs(statFile: string): number {
  const stat = readFileSync(statFile, "utf8");
  // utime and stime are fields 14 and 15, in ticks of 10 ms; the command name before them may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Pids whose parent is `pid` (Linux /proc): the downstream servers a runtime has started. */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (ppid) follows the command name in parentheses, which may itself hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Write an agent-tools config file with these mcpServers entries; returns its path. */
export function writeConfig(dir: string, servers: Record<string, Record<string, unknown>>, name = "agent-tools.config.json"): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** `count` catalog-server entries named s01, s02, ... (each its own downstream process). */
export function catalogServers(count: number): Record<string, Record<string, unknown>> {
  const servers: Record<string, Record<string, unknown>> = {};
  for (let i = 1; i <= count; i++) {
    const name = `s${String(i).padStart(2, "0")}`;
    servers[name] = { command: process.execPath, args: [CATALOG_SERVER, "--name", name], description: `Service ${name} of the bench fleet` };
  }
  return servers;
}

/** Run `rounds` rounds of `round`, printing progress on stderr. */
export async function rounds<T>(label: string, count: number, round: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i++) {
    process.stderr.write(`  ${label}: round ${i + 1}/${count}\r`);
    out.push(await round(i));
  }
  process.stderr.write(`${" ".repeat(60)}\r`);
  return out;
}

/**
 * The least a cold listing of `servers` can cost: each started and asked initialize and tools/list
 * over raw JSON-RPC lines, `concurrency` at a time, and nothing else (no client library). Started
 * in process groups of their own (detached), as the runtime starts its servers: on Linux each then
 * is a scheduling group of its own, which on a shared machine decides how much CPU they get.
 * Answers the wall time until the last was listed and the CPU the servers used.
 */
export async function listFloor(servers: Record<string, Record<string, unknown>>, concurrency: number): Promise<{ ms: number; serverCpuMs: number }> {
  const queue = Object.values(servers);
  const started: ChildProcess[] = [];
  const start = performance.now();
  const one = async (entry: Record<string, unknown>): Promise<void> => {
    const child = spawn(entry.command as string, entry.args as string[], { env: cleanEnv(), stdio: ["pipe", "pipe", "ignore"], detached: true });
    started.push(child);
    const waiting = new Map<number, () => void>();
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        const id = (JSON.parse(line) as { id?: number }).id;
        if (id !== undefined) waiting.get(id)?.();
      }
    });
    const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    const ask = (id: number, method: string, params: object) => new Promise<void>((resolve) => (waiting.set(id, resolve), send({ id, method, params })));
    await ask(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agent-tools-perf-floor", version: "0.0.0" } });
    send({ method: "notifications/initialized" });
    await ask(2, "tools/list", {});
  };
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) await one(entry);
  }));
  const ms = performance.now() - start;
  let serverCpuMs = 0;
  for (const child of started) serverCpuMs += child.pid !== undefined ? cpuMs(child.pid) : 0;
  for (const child of started) child.stdin!.end();
  await Promise.all(started.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined)));
  return { ms, serverCpuMs };
}
