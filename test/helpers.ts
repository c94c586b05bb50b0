import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

/** Test helpers: the built server spawned over real stdio and driven by the SDK client. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const FIXTURES = path.join(ROOT, "test", "fixtures");
export const PLUGINS = path.join(FIXTURES, "plugins");
export const BROKEN = path.join(FIXTURES, "broken");
export const MCP_BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp.js");
export const CLI_BIN = path.join(ROOT, "dist", "bin", "agent-tools.js");

export interface Connected {
  client: Client;
  /** The server process's id. */
  pid: number;
  stderr: () => string;
  close: () => Promise<void>;
}

export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AGENT_TOOLS_")) env[k] = v;
  // The catalog cache is off unless a test turns it on with its own folder: runs must not share catalogs.
  // Audit lines of test runs stay out of the developer's ~/.local/state (tests that check the audit turn it on).
  // HTTP servers skip their warm-up (the search model's load): tests start dozens of them on a few
  // cores; test/http.warm-up.test.ts turns it on.
  return { ...env, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_WARM_UP: "off", ...extra };
}

/** `nodeArgs`: node's own flags for the server process (e.g. a probe to preload), before the bin. `bin`: another copy of the built server. */
export async function connect(pluginsDir: string = PLUGINS, extraEnv: Record<string, string> = {}, nodeArgs: string[] = [], bin: string = MCP_BIN): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, bin],
    env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir, ...extraEnv }),
    cwd: FIXTURES,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "agent-tools-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid ?? -1, stderr: () => stderr, close: () => client.close() };
}

/**
 * A server (or any resource) for the enclosing describe block: opened in its before hook, closed
 * in its after hook (the pair each suite used to write out). The object returned stands for it:
 * its fields are read when used, so inside the tests, once before has run.
 */
export function forSuite<T extends object>(open: () => Promise<T>, close: (opened: T) => Promise<void>): T {
  let opened: T | undefined;
  before(async () => {
    opened = await open();
  });
  after(async () => {
    if (opened) await close(opened);
  });
  return new Proxy({} as T, {
    get(_, key) {
      const target = opened ?? assert.fail(`the suite's server was read (${String(key)}) before its before hook ran`);
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The built server over stdio for the enclosing describe block (forSuite). */
export function stdioForSuite(pluginsDir: string = PLUGINS, extraEnv: Record<string, string> = {}): Connected {
  return forSuite(
    () => connect(pluginsDir, extraEnv),
    (connected) => connected.close(),
  );
}

/** Connect a v1 SDK client (one a test built with its own capabilities) to the built server over stdio. */
export async function connectStdioV1(client: Client, extraEnv: Record<string, string> = {}): Promise<void> {
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv(extraEnv), stderr: "pipe" }));
}

/**
 * The built server copied to a temporary folder beside a commands/ folder of its own holding
 * `modules` (file name → text), so a test's text modules never sit in the project's commands/,
 * where other tests list them. Returns the folder (remove it after) and the stdio server's path.
 */
export function builtServerWithModules(modules: Record<string, string>, prefix = "agent-tools-modules-"): { dir: string; bin: string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cpSync(path.join(ROOT, "dist"), path.join(dir, "dist"), { recursive: true });
  cpSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  mkdirSync(path.join(dir, "commands"));
  for (const [file, text] of Object.entries(modules)) writeFileSync(path.join(dir, "commands", file), text);
  return { dir, bin: path.join(dir, "dist", "bin", "agent-tools-mcp.js") };
}

/** A plugin folder for a test: `plugin.json` from `manifest`, and any other files (path in the folder → text). Returns the folder. */
export function writePlugin(folder: string, manifest: Record<string, unknown>, files: Record<string, string> = {}): string {
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "plugin.json"), JSON.stringify(manifest));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    writeFileSync(path.join(folder, name), text);
  }
  return folder;
}

/** A process's resident memory now and at its peak, in bytes, from /proc (Linux only). */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

export type Payload = Record<string, unknown> & {
  ok: boolean;
  error?: { code: string; message: string; hint: string; details?: Record<string, unknown> };
  repairs?: string[];
};

/**
 * Call a facade tool and return its JSON payload, checking the answer's form: one text block of
 * one-line JSON, and no structuredContent (the payload is sent once, where clients show it).
 */
export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ payload: Payload; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  if (!first || first.type !== "text" || result.content.length !== 1) throw new Error(`not one text block from ${name}`);
  if (first.text.includes("\n")) throw new Error(`the answer of ${name} is not one line`);
  if (result.structuredContent !== undefined) throw new Error(`${name} sent its payload twice (structuredContent)`);
  return { payload: JSON.parse(first.text) as Payload, isError: result.isError === true };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the agent-tools CLI as a real process; `input`, when given, is written to its stdin (closed after). */
export function runCli(args: string[], env: Record<string, string> = baseEnv(), bin: string = CLI_BIN, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, cwd: FIXTURES, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The JSON of a tool result's text block (where the facade puts its one-line answer). */
export function textJson<T = Payload>(result: unknown): T {
  const first = (result as CallToolResult).content?.[0];
  if (!first || first.type !== "text") throw new Error("no text content");
  return JSON.parse(first.text) as T;
}

/** One output of the build's esbuild metafile (dist/bundle-meta.json, written by scripts/bundle.ts). */
export interface BundleOutput { inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] }

export function readBundleMeta(): { inputs: Record<string, unknown>; outputs: Record<string, BundleOutput> } {
  return JSON.parse(readFileSync(path.join(ROOT, "dist", "bundle-meta.json"), "utf8")) as { inputs: Record<string, unknown>; outputs: Record<string, BundleOutput> };
}

/**
 * What loading `entry` loads, by the metafile: the source files of every output reached and the
 * package imports left external. `follow` picks which import kinds are walked (all by default;
 * `"import-statement"` only for what a module needs before its first dynamic import).
 */
export function bundleReach(entry: string, follow: (kind: string) => boolean = () => true): { sources: Set<string>; externals: Set<string> } {
  const meta = readBundleMeta();
  const seen = new Set<string>();
  const sources = new Set<string>();
  const externals = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const output = meta.outputs[file];
    assert.ok(output, `${file} is an output of the build`);
    for (const input of Object.keys(output.inputs)) sources.add(input);
    for (const imported of output.imports) {
      if (imported.external) externals.add(imported.path);
      else if (follow(imported.kind)) visit(imported.path);
    }
  };
  visit(entry);
  return { sources, externals };
}
