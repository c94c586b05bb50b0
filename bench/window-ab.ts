import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { childrenOf, cleanEnv, cpuOf, EVERYTHING_SERVER, fmt, spawnClient, stats, tempDir, writeConfig } from "./perf-kit.js";

/**
 * The 16-caller row's window of bench/perf.ts (a new runtime process: 30 warm-up calls, 300
 * sequential, then 16 callers × 113), for two or more runtime builds alternating round by round,
 * each optionally with extra node flags or environment: an A/B of a hot-path change with more
 * rounds than perf.ts can afford, and the figures perf.ts does not print.
 *   node --import tsx bench/window-ab.ts <rounds> <label>=<bin.js>[|<node flag> ... @NAME=value ...] ...
 * e.g. `new=dist/bin/agent-tools-mcp.js 'old=../base/dist/bin/agent-tools-mcp.js|--max-opt=1'`.
 * Per build (min / median of the rounds): the sequential calls' wall time and the runtime's CPU per
 * call; its CPU per call in the 16-caller window and in the next 3,616 calls; the window's
 * calls/s; and, per call in the window, the reads, writes and wake-ups (voluntary context
 * switches) of the runtime, of its downstream server and of this client (/proc; Linux only).
 */

interface Build {
  label: string;
  bin: string;
  flags: string[];
  env: Record<string, string>;
}

function parseBuild(arg: string): Build {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new Error(`bench/window-ab.ts: '${arg}' is not <label>=<bin.js>[|flags]; e.g. new=dist/bin/agent-tools-mcp.js`);
  const [bin = "", extra = ""] = arg.slice(eq + 1).split("|");
  const words = extra.split(" ").filter(Boolean);
  const env = Object.fromEntries(words.filter((w) => w.startsWith("@")).map((w) => [w.slice(1, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]));
  return { label: arg.slice(0, eq), bin: path.resolve(bin), flags: words.filter((w) => !w.startsWith("@")), env };
}

const [roundsArg, ...buildArgs] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || buildArgs.length === 0) {
  console.error("usage: node --import tsx bench/window-ab.ts <rounds> <label>=<bin.js>[|<node flag> ... @NAME=value ...] ...");
  process.exit(2);
}
const builds = buildArgs.map(parseBuild);
const SEQUENTIAL = 300;
const CALLERS = 16;
const PER_CALLER = 113;
const WINDOW = CALLERS * PER_CALLER;

/** Reads, writes and voluntary context switches of a process so far (zeros once it has ended). */
function ioOf(pid: number): number[] {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return [/syscr: (\d+)/.exec(io), /syscw: (\d+)/.exec(io), /^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)].map((m) => Number(m?.[1] ?? NaN));
  } catch {
    return [0, 0, 0];
  }
}

interface Figures {
  seqMs: number[];
  seqUs: number[];
  windowUs: number[];
  nextUs: number[];
  callsPerS: number[];
  /** Per round: runtime, server, client × reads, writes, wake-ups, per call in the window. */
  io: number[][];
}

const figures = new Map<string, Figures>(builds.map((b) => [b.label, { seqMs: [], seqUs: [], windowUs: [], nextUs: [], callsPerS: [], io: [] }]));

async function round(build: Build, into: Figures): Promise<void> {
  const dir = tempDir("window-ab");
  try {
    const config = writeConfig(dir, { ev: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], requireConfirm: false } });
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(dir, "cache"), XDG_STATE_HOME: path.join(dir, "state"), AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", ...build.env });
    const rt = await spawnClient([...build.flags, build.bin], env, dir);
    try {
      const call = async (): Promise<void> => {
        const result = await rt.client.callTool({ name: "agent_tools_ev_call", arguments: { toolName: "echo", arguments: { message: "hello" } } });
        if (result.isError) throw new Error(`echo through ${build.label} failed: ${JSON.stringify(result.content)}`);
      };
      const callers = () => Promise.all(Array.from({ length: CALLERS }, async () => {
        for (let i = 0; i < PER_CALLER; i++) await call();
      }));
      for (let i = 0; i < 30; i++) await call();
      let cpu = cpuOf(rt.pid);
      let start = performance.now();
      for (let i = 0; i < SEQUENTIAL; i++) await call();
      into.seqMs.push((performance.now() - start) / SEQUENTIAL);
      into.seqUs.push(((cpuOf(rt.pid) - cpu) * 1000) / SEQUENTIAL);
      const pids = [rt.pid, childrenOf(rt.pid)[0] ?? -1, process.pid];
      const ioBefore = pids.flatMap(ioOf);
      cpu = cpuOf(rt.pid);
      start = performance.now();
      await callers();
      into.callsPerS.push(WINDOW / ((performance.now() - start) / 1000));
      into.windowUs.push(((cpuOf(rt.pid) - cpu) * 1000) / WINDOW);
      into.io.push(pids.flatMap(ioOf).map((v, i) => (v - ioBefore[i]!) / WINDOW));
      cpu = cpuOf(rt.pid);
      await callers();
      await callers();
      into.nextUs.push(((cpuOf(rt.pid) - cpu) * 1000) / (2 * WINDOW));
    } finally {
      await rt.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = async () => (await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(`window-ab: ${ROUNDS} rounds, min / median; node ${process.version}; load ${await load()}`);
for (let r = 0; r < ROUNDS; r++) {
  // Every other round in the reverse order: no build always goes first.
  for (const build of r % 2 ? [...builds].reverse() : builds) await round(build, figures.get(build.label)!);
  process.stderr.write(`  round ${r + 1}/${ROUNDS}`);
}
process.stderr.write("\n");
const both = (values: number[], digits: number) => {
  const s = stats(values);
  return `${fmt(s.min, digits)} / ${fmt(s.median, digits)}`;
};
for (const build of builds) {
  const f = figures.get(build.label)!;
  const io = (i: number) => fmt(stats(f.io.map((row) => row[i]!)).median, 2);
  console.log(
    `${build.label}: sequential ${both(f.seqMs, 3)} ms, ${both(f.seqUs, 0)} µs CPU per call; 16 callers ${both(f.windowUs, 0)} µs CPU per call, ${both(f.callsPerS, 0)} calls/s; the next ${2 * WINDOW} calls ${both(f.nextUs, 0)} µs`,
  );
  console.log(`  per call in the window (reads / writes / wake-ups, medians): runtime ${io(0)} / ${io(1)} / ${io(2)}, its server ${io(3)} / ${io(4)} / ${io(5)}, this client ${io(6)} / ${io(7)} / ${io(8)}`);
}
console.log(`load ${await load()}`);
