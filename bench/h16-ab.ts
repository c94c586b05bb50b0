// Scratch A/B: runtime CPU per call in the bench's window (30 warm-up, 300 sequential, 16 x 113 concurrent), two builds alternating.
import { rmSync } from "node:fs";
import path from "node:path";
import { readFileSync } from "node:fs";
import { childrenOf, cleanEnv, cpuOf, EVERYTHING_SERVER, spawnClient, stats, tempDir, writeConfig } from "./perf-kit.js";

const [roundsArg, ...builds] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
// each build: "label=/path/to/bin.js[|--flag --flag]"
const parsed = builds.map((b) => { const [label, rest] = b.split("="); const [bin, flags] = rest!.split("|"); const all = flags ? flags.split(" ") : []; return { label: label!, bin: bin!, flags: all.filter((f) => !f.startsWith("@")), env: Object.fromEntries(all.filter((f) => f.startsWith("@")).map((f) => f.slice(1).split("="))) as Record<string, string> }; });
const res: Record<string, { seq: number[]; conc: number[]; next: number[]; cps: number[]; io: number[][] }> = {};
for (const p of parsed) res[p.label] = { seq: [], conc: [], next: [], cps: [], io: [] };
// reads, writes, voluntary context switches (wake-ups) of a process
const io = (pid: number): number[] => {
  try {
    const t = readFileSync(`/proc/${pid}/io`, "utf8"); const st = readFileSync(`/proc/${pid}/status`, "utf8");
    return [Number(/syscr: (\d+)/.exec(t)![1]), Number(/syscw: (\d+)/.exec(t)![1]), Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(st)![1])];
  } catch { return [0, 0, 0]; }
};
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...parsed].reverse() : parsed;
  for (const p of order) {
    const dir = tempDir("ab");
    const config = writeConfig(dir, { ev: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], requireConfirm: false } });
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(dir, "cache"), XDG_STATE_HOME: path.join(dir, "state"), AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", ...p.env });
    const rt = await spawnClient([...p.flags, p.bin], env, dir);
    const call = async () => { const x = await rt.client.callTool({ name: "agent_tools_ev_call", arguments: { toolName: "echo", arguments: { message: "hello" } } }); if (x.isError) throw new Error(JSON.stringify(x.content)); };
    for (let i = 0; i < 30; i++) await call();
    let c0 = cpuOf(rt.pid);
    for (let i = 0; i < 300; i++) await call();
    let c1 = cpuOf(rt.pid);
    res[p.label]!.seq.push((c1 - c0) * 1000 / 300);
    const conc = async () => { await Promise.all(Array.from({ length: 16 }, async () => { for (let i = 0; i < 113; i++) await call(); })); };
    const kid = childrenOf(rt.pid)[0] ?? -1;
    const i0 = [...io(rt.pid), ...io(kid), ...io(process.pid)];
    c0 = cpuOf(rt.pid); const t0 = performance.now();
    await conc();
    c1 = cpuOf(rt.pid); const t1 = performance.now();
    const i1 = [...io(rt.pid), ...io(kid), ...io(process.pid)];
    res[p.label]!.io.push(i1.map((v, k) => (v - i0[k]!) / 1808));
    res[p.label]!.conc.push((c1 - c0) * 1000 / 1808);
    res[p.label]!.cps.push(1808 / ((t1 - t0) / 1000));
    c0 = cpuOf(rt.pid);
    await conc(); await conc();
    c1 = cpuOf(rt.pid);
    res[p.label]!.next.push((c1 - c0) * 1000 / 3616);
    if (process.env.AB_STDERR) process.stderr.write(rt.stderr());
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const f = (v: number[]) => { const s = stats(v); return `${s.min.toFixed(0)} / ${s.median.toFixed(0)}`; };
for (const p of parsed) {
  const x = res[p.label]!;
  const med = (k: number) => stats(x.io.map((r) => r[k]!)).median.toFixed(2);
  console.log(`${p.label.padEnd(10)} seq ${f(x.seq)} µs  window ${f(x.conc)} µs  next ${f(x.next)} µs  calls/s ${f(x.cps)}  (min / median of ${ROUNDS})`);
  console.log(`${"".padEnd(10)} per call in the window (median): runtime reads ${med(0)} writes ${med(1)} wake-ups ${med(2)}; server ${med(3)} / ${med(4)} / ${med(5)}; client ${med(6)} / ${med(7)} / ${med(8)}`);
}
