import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import assert from "node:assert/strict";
import { HINTS } from "../src/runtime/errors.js";
import { ROOT } from "./helpers.js";
import { WAIT_MS } from "./wait.js";

/**
 * Helpers of the clients.* tests: real coding-agent CLIs installed on demand into the ignored
 * .clients/ folder, run in throw-away homes under a hard timeout, with a check that nothing they
 * started is still alive afterwards.
 */

export const CLIENTS_DIR = path.join(ROOT, ".clients");

export interface InstalledClient {
  /** The --prefix folder the package was installed into. */
  prefix: string;
  /** node_modules/<pkg> inside it. */
  packageDir: string;
  installedNow: boolean;
}

/** Install `pkg@version` into .clients/<pkg>-<version>/ unless that exact version is already there. */
export function ensureClient(pkg: string, version: string): InstalledClient {
  const prefix = path.join(CLIENTS_DIR, `${pkg.replace(/[@/]/g, "_")}-${version}`);
  const packageDir = path.join(prefix, "node_modules", ...pkg.split("/"));
  if (installedVersion(packageDir) === version) return { prefix, packageDir, installedNow: false };
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const run = spawnSync(npm, ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `${pkg}@${version}`], {
    encoding: "utf8",
    timeout: 600_000,
  });
  if (run.status !== 0 || installedVersion(packageDir) !== version) {
    throw new Error(`npm install ${pkg}@${version} into ${prefix} failed (exit ${run.status}):\n${run.stderr}\n${run.stdout}`);
  }
  return { prefix, packageDir, installedNow: true };
}

function installedVersion(packageDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** A fresh temporary folder (a client's HOME, config dir, work dir), removed by the returned function. */
export function tempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `agent-tools-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** The env var that marks every process of one client run, so leftovers can be found in /proc. */
// Not AGENT_TOOLS_*: the server says an AGENT_TOOLS_* name it does not read (config/env-settings.ts).
export const RUN_MARKER_VAR = "TEST_RUN_AGENT_TOOLS";

export function newRunMarker(): string {
  return randomUUID();
}

/**
 * Run a client to its end in its own process group, stdin from /dev/null, killed (whole group)
 * after `timeoutMs`. The caller then asserts on what the fake endpoint saw, not on the exit code.
 */
export function runClient(options: { command: string; args: string[]; env: Record<string, string>; cwd: string; timeoutMs: number }): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Pids of live processes whose environment carries RUN_MARKER_VAR=marker (Linux /proc). */
export function processesWithMarker(marker: string): number[] {
  const needle = `${RUN_MARKER_VAR}=${marker}`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // a zombie has exited already; only its parent's wait is missing
      if (/\) Z /.test(stat)) continue;
      if (environ.split("\0").includes(needle)) found.push(Number(entry));
    } catch {
      // the process ended while we looked, or is not ours to read
    }
  }
  return found;
}

/**
 * Wait up to `ms` (seconds by default, see wait.ts) for every process of a run to end (an MCP
 * server exits a moment after its client closes stdin). Whatever is still there is killed and reported, so the test can fail on it.
 */
export async function leftoverProcesses(marker: string, ms = WAIT_MS): Promise<string[]> {
  const until = Date.now() + ms;
  let pids = processesWithMarker(marker);
  while (pids.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    pids = processesWithMarker(marker);
  }
  const described = pids.map((pid) => {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    } catch {
      // gone meanwhile
    }
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
    return `${pid} ${cmd}`;
  });
  return described;
}

/** Whether /proc can be read, which the leftover check needs (Linux). */
export const CAN_SCAN_PROCESSES = existsSync("/proc/self/environ");

/**
 * The common check of every client run. `turns` are the model requests of the agent loop in order,
 * each reduced to the tool-result texts it carries (oldest first). Step i's result must be the
 * newest result of the first request that carries i+1 results: the client sent it straight back.
 * `offset` skips client-native steps that come before the facade steps (Claude Code's ToolSearch).
 */
export function assertNotesScript(turns: string[][], offset = 0): { discover: string; read: string; refused: string; created: string } {
  const resultOf = (step: number): string => {
    const turn = turns.find((results) => results.length === step + 1);
    assert.ok(turn, `no model request carried the result of script step ${step} (requests carried ${turns.map((t) => t.length).join(", ")} results)`);
    return turn[step] ?? "";
  };
  const discover = resultOf(offset);
  const read = resultOf(offset + 1);
  const refused = resultOf(offset + 2);
  const created = resultOf(offset + 3);
  assert.match(discover, /get_note/, "discover with a query names the get_note tool");
  assert.match(read, /milk, bread, coffee beans/, "the get_note result reached the model");
  assert.match(refused, /CONFIRM_REQUIRED/, "create_note without confirm is refused");
  assert.ok(refused.includes(HINTS.CONFIRM_REQUIRED), "the refusal carries the runtime's hint");
  // A client may hand the model the answer inside its own JSON (Codex does), so quotes can arrive escaped.
  assert.doesNotMatch(refused, /\\?"ok\\?":\s*true/);
  assert.match(created, /\\?"ok\\?":\s*true/, "the retry with confirm: true succeeds");
  assert.match(created, /\\?"id\\?":\s*\\?"n3\\?"/, "the retry created note n3");
  return { discover, read, refused, created };
}
