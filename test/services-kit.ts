import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, connect as tcpConnect } from "node:net";
import os from "node:os";
import path from "node:path";
import { WAIT_MS } from "./wait.js";

/**
 * Real services for the team-gateway tests: Debian's redis-server and HAProxy, started on free
 * loopback ports in a temp folder and stopped (SIGTERM, then SIGKILL) at the end. `.ci/run`
 * installs both packages when missing; `servicesMissing()` lets a developer without them see a
 * clear skip reason instead of a spawn error.
 */

const HAPROXY_CANDIDATES = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"];
const REDIS_CANDIDATES = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];

function firstExisting(candidates: string[]): string | undefined {
  return candidates.find((candidate) => existsSync(candidate));
}

export function redisServerBin(): string | undefined {
  return firstExisting(REDIS_CANDIDATES);
}

export function haproxyBin(): string | undefined {
  return firstExisting(HAPROXY_CANDIDATES);
}

/** Undefined when both are installed, else a sentence saying what is missing and how to get it. */
export function servicesMissing(need: Array<"redis" | "haproxy"> = ["redis", "haproxy"]): string | undefined {
  const missing = need.filter((name) => (name === "redis" ? !redisServerBin() : !haproxyBin()));
  return missing.length ? `${missing.join(" and ")} not installed: apt-get install -y ${missing.map((m) => (m === "redis" ? "redis-server" : "haproxy")).join(" ")} (.ci/run does it)` : undefined;
}

/** A port nobody listens on right now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RunningService {
  port: number;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

function track(child: ChildProcess): { output: () => string; exited: Promise<void> } {
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return { output: () => output, exited };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(killer);
}

/** Spawn a service, wait until it listens on `port`, and stop it (then remove `dir`) on `stop()`. */
async function runService(bin: string, args: string[], port: number, dir: string): Promise<RunningService> {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  const { output, exited } = track(child);
  try {
    await waitForPort(port);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${output()}`);
  }
  return {
    port,
    child,
    output,
    stop: async () => {
      await stopChild(child, exited);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** redis-server on a free loopback port (or `port`: a restart in place of one stopped), no persistence, its files in a temp folder. */
export async function startRedis(onPort?: number): Promise<RunningService & { url: string }> {
  const bin = redisServerBin();
  if (!bin) throw new Error(servicesMissing(["redis"]));
  const port = onPort ?? (await freePort());
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-redis-"));
  const service = await runService(bin, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--loglevel", "warning"], port, dir);
  return { ...service, url: `redis://127.0.0.1:${port}` };
}

/** HAProxy in the foreground (-db) with the given config text; `port` is the one the config binds (pass it in). */
export async function startHaproxy(configText: string, port: number): Promise<RunningService & { configFile: string }> {
  const bin = haproxyBin();
  if (!bin) throw new Error(servicesMissing(["haproxy"]));
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-haproxy-"));
  const configFile = path.join(dir, "haproxy.cfg");
  await writeFile(configFile, configText);
  const check = spawn(bin, ["-c", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  const checked = track(check);
  await checked.exited;
  if (check.exitCode !== 0) throw new Error(`haproxy refused the config:\n${checked.output()}`);
  return { ...(await runService(bin, ["-db", "-f", configFile], port, dir)), configFile };
}

/**
 * The HAProxy config of the README's "Run it for a team", with the test's ports.
 * AGENT_TOOLS_TEST_HAPROXY_LOG=<file> adds HAProxy's request log (one line per request, with its
 * termination state) and writes it there after the run: what to read when a client saw a failed fetch.
 */
export function haproxyConfig(port: number, servers: Array<{ name: string; port: number }>): string {
  return `global
  maxconn 4096
${process.env.AGENT_TOOLS_TEST_HAPROXY_LOG ? "  log stderr format raw local0 info\n" : ""}
defaults
  mode http
${process.env.AGENT_TOOLS_TEST_HAPROXY_LOG ? "  log global\n  option httplog\n" : ""}  timeout connect 2s
  timeout client 120s
  timeout server 120s
  # A request refused at connect time (instance down) is sent to another instance.
  option redispatch
  retries 2
  # No retry-on with 503: a call an instance interrupted at shutdown must not be sent again.

frontend mcp
  bind 127.0.0.1:${port}
  default_backend gateways

backend gateways
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # A busy instance answers its health check late: give it time before calling it down.
  timeout check 10s
  # An instance's Keep-Alive hint describes the balancer's connection to it, not the client's.
  http-response del-header keep-alive
  # Modern workspaces: the handle names the instance holding its shell (ws1.<instance>~<id>.<mac>), and
  # 2026-07-28 clients mirror it in Mcp-Param-Workspace. A down server's rule is skipped: another
  # instance answers WORKSPACE_LOST.
${servers.map((s) => `  use-server ${s.name} if { req.hdr(mcp-param-workspace) -m sub .${s.name}~ }`).join("\n")}
  # Legacy sessions: learn Mcp-Session-Id from the initialize response, stick every later request to it.
  stick-table type string len 64 size 1m expire 30m
  stick store-response res.hdr(mcp-session-id)
  stick match req.hdr(mcp-session-id)
${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check inter 1s fall 3 rise 1`).join("\n")}
`;
}
