import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { IN_MEMORY_KIND, inMemoryAdapterKind, inMemoryManifests } from "../src/cli/in-memory-fleet.js";
import { readTools, type DatasetTool } from "../src/cli/retrieval-data.js";
import { formatTokensReport, tokensReport } from "../src/cli/tokens.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { GITHUB_CATALOG, SEAL_DIR } from "./retrieval-kit.js";

/**
 * Context cost: tools/list tokens (o200k) of the facade in both modes against the same fleet
 * listed flat, for the bundled default fleet (the real filesystem and memory MCP servers over
 * stdio), the GitHub MCP server's catalog, and fleets of 50 and 500 tools cut from Seal-Tools.
 * Run: node --import tsx bench/context-cost.ts
 */

async function inMemory(label: string, tools: DatasetTool[], origin: string) {
  const runtime = await createRuntime({ manifests: inMemoryManifests(tools, origin), adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, log: silentLogger, env: {} });
  try {
    return { label, report: await tokensReport(runtime) };
  } finally {
    await runtime.close();
  }
}

const cwd = mkdtempSync(path.join(os.tmpdir(), "agent-tools-context-"));
const rows = [];
try {
  const bundled = await createRuntime({ cwd, log: silentLogger, env: { ...process.env, AGENT_TOOLS_MEMORY_FILE: path.join(cwd, "memory.jsonl") } });
  try {
    const report = await tokensReport(bundled);
    rows.push({ label: "bundled default fleet (filesystem, memory)", report });
    console.log(formatTokensReport(report));
  } finally {
    await bundled.close();
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
rows.push(await inMemory("GitHub MCP server catalog", readTools(GITHUB_CATALOG, "github"), GITHUB_CATALOG));
const seal = readTools(`${SEAL_DIR}/tools.json`);
// Whole servers, in file order, until the fleet has the wanted number of tools.
const cut = (n: number) => {
  const servers = new Set<string>();
  const picked: DatasetTool[] = [];
  for (const t of seal) {
    if (picked.length >= n && !servers.has(t.server)) break;
    servers.add(t.server);
    picked.push(t);
  }
  return picked;
};
rows.push(await inMemory("Seal-Tools fleet, ~50 tools", cut(50), SEAL_DIR));
rows.push(await inMemory("Seal-Tools fleet, ~500 tools", cut(500), SEAL_DIR));

console.log("fleet                                        plugins  tools   flat tok  per-plugin tok (less)   compact tok (less)  per-plugin tok/plugin");
for (const { label, report } of rows) {
  const per = report.modes["per-plugin"];
  const compact = report.modes.compact;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const perPlugin = report.perPlugin.length ? Math.max(...report.perPlugin.map((p) => p.perPluginTokens)) : 0;
  console.log(
    `${label.padEnd(44)} ${String(report.plugins).padStart(7)} ${String(report.flat.tools).padStart(6)} ${String(report.flat.tokens).padStart(10)} ${`${per.tokens} (${pct(per.reduction)})`.padStart(22)} ${`${compact.tokens} (${pct(compact.reduction)})`.padStart(20)} ${`max ${perPlugin}`.padStart(22)}`,
  );
}
