import fc from "fast-check";
import { parseArgs } from "node:util";
import { fuzzPayload, httpTarget, stdioTarget, type FuzzTarget } from "../test/fuzz-kit.js";

/**
 * The protocol fuzzer at scale: `npm run bench:fuzz [-- --cases N --transport stdio|http|both --seed S]`.
 * Sends N generated cases (default 100,000) to the built server over each transport and prints how
 * many it sent, how many failed, the rate, and the first failures with their payloads. Needs `npm run build`.
 */

const { values } = parseArgs({
  options: { cases: { type: "string", default: "100000" }, transport: { type: "string", default: "both" }, seed: { type: "string", default: "1" } },
});
const cases = Number(values.cases);
const seed = Number(values.seed);
if (!Number.isInteger(cases) || cases < 1) throw new Error(`--cases must be a positive integer (got '${values.cases}')`);
const transports = values.transport === "both" ? ["stdio", "http"] : [values.transport];
for (const name of transports) if (name !== "stdio" && name !== "http") throw new Error(`--transport must be stdio, http or both (got '${name}')`);

const BATCH = 1000;

async function fuzz(target: FuzzTarget): Promise<{ sent: number; failed: number; examples: string[]; seconds: number }> {
  const started = process.hrtime.bigint();
  let sent = 0;
  let failed = 0;
  const examples: string[] = [];
  for (let offset = 0; offset < cases; offset += BATCH) {
    const payloads = fc.sample(fuzzPayload, { numRuns: Math.min(BATCH, cases - offset), seed: seed + offset });
    for (const payload of payloads) {
      sent += 1;
      const outcome = await target.run(payload);
      if (!outcome.ok) {
        failed += 1;
        if (examples.length < 5) examples.push(`${outcome.reason}\n    payload: ${JSON.stringify(payload.slice(0, 200))}`);
      }
    }
    process.stderr.write(`\r${target.name}: ${sent}/${cases} sent, ${failed} failed`);
  }
  process.stderr.write("\n");
  return { sent, failed, examples, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

process.stdout.write(`protocol fuzzing, seed ${seed}, ${cases} cases per transport\n`);
for (const name of transports) {
  const rows: string[] = [];
  const target = name === "stdio" ? await stdioTarget() : await httpTarget();
  try {
    const result = await fuzz(target);
    rows.push(`${name.padEnd(6)} sent ${String(result.sent).padStart(7)}  failed ${String(result.failed).padStart(5)}  ${(result.sent / result.seconds).toFixed(0).padStart(6)} cases/s  ${result.seconds.toFixed(1)} s`);
    for (const example of result.examples) rows.push(`  failure: ${example}`);
  } finally {
    await target.close();
  }
  process.stdout.write(`${rows.join("\n")}\n`);
}
