// Scratch A/B: runtime CPU per call in the bench's window (30 warm-up, 300 sequential, 16 x 113 concurrent), two builds alternating.
import { rmSync } from "node:fs";
import path from "node:path";
import { cleanEnv, cpuOf, EVERYTHING_SERVER, spawnClient, stats, tempDir, writeConfig } from "./perf-kit.js";

const [roundsArg, ...builds] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
// each build: "label=/path/to/bin.js[|--flag --flag]"
const parsed = builds.map((b) => { const [label, rest] = b.split("="); const [bin, flags] = rest!.split("|"); return { label: label!, bin: bin!, flags: flags ? flags.split(" ") : [] }; });
const res: Record<string, { seq: number[]; conc: number[]; next: number[]; cps: number[] }> = {};
for (const p of parsed) res[p.label] = { seq: [], conc: [], next: [], cps: [] };
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...parsed].reverse() : parsed;
  for (const p of order) {
    const dir = tempDir("ab");
    const config = writeConfig(dir, { ev: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], requireConfirm: false } });
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(dir, "cache"), XDG_STATE_HOME: path.join(dir, "state"), AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1" });
    const rt = await spawnClient([...p.flags, p.bin], env, dir);
    const call = async () => { const x = await rt.client.callTool({ name: "agent_tools_ev_call", arguments: { toolName: "echo", arguments: { message: "hello" } } }); if (x.isError) throw new Error(JSON.stringify(x.content)); };
    for (let i = 0; i < 30; i++) await call();
    let c0 = cpuOf(rt.pid);
    for (let i = 0; i < 300; i++) await call();
    let c1 = cpuOf(rt.pid);
    res[p.label]!.seq.push((c1 - c0) * 1000 / 300);
    const conc = async () => { await Promise.all(Array.from({ length: 16 }, async () => { for (let i = 0; i < 113; i++) await call(); })); };
    c0 = cpuOf(rt.pid); const t0 = performance.now();
    await conc();
    c1 = cpuOf(rt.pid); const t1 = performance.now();
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
for (const p of parsed) { const x = res[p.label]!; console.log(`${p.label.padEnd(10)} seq ${f(x.seq)} µs  window ${f(x.conc)} µs  next ${f(x.next)} µs  calls/s ${f(x.cps)}  (min / median of ${ROUNDS})`); }
