import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { IN_MEMORY_KIND, inMemoryAdapterKind, inMemoryManifests } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetTool } from "../src/cli/retrieval-data.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, DISCOVER_TOKEN_BUDGET } from "../src/runtime/runtime.js";
import { linkFacade } from "../test/memory-kit.js";
import { benchData, GITHUB_CATALOG, SEAL_DIR } from "./retrieval-kit.js";

/**
 * What answers cost a model, in o200k tokens of the text the client shows (the facade's one-line
 * JSON), measured through the real facade over the SDK's in-memory transport:
 * - `_discover` over 100 queries on a 50-server fleet: 49 Seal-Tools servers (those its dev queries
 *   ask for most) and the GitHub MCP server's real catalog; each query goes to the plugin that holds its
 *   relevant tool (up to 80 Seal-Tools dev queries whose first relevant tool is in the fleet, the
 *   rest from the GitHub check set, 100 in all);
 * - a validation error for a one-field mistake (a required field left out; a field of the wrong
 *   type), from a valid call, on every tool of the GitHub catalog that has a required string field.
 * Plugins require confirmation (as mcpServers entries do); GitHub tools marked readOnlyHint are read-only.
 * Run: node --import tsx bench/answer-cost.ts
 */

function stats(values: number[]): { min: number; median: number; p90: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))] ?? 0;
  return { min: sorted[0] ?? 0, median: at(0.5), p90: at(0.9), max: sorted[sorted.length - 1] ?? 0 };
}

const seal = readTools(path.join(SEAL_DIR, "tools.json"));
const sealServerOf = new Map(seal.map((t) => [t.name, t.server]));
const allSealQueries = readQueries(path.join(SEAL_DIR, "queries.jsonl"));
// The 49 servers that the most single-server queries ask for, so 80 queries can each name one plugin.
const asked = new Map<string, number>();
for (const q of allSealQueries) {
  const owners = new Set(q.relevant.map((r) => sealServerOf.get(r)));
  const [only] = owners;
  if (owners.size === 1 && only) asked.set(only, (asked.get(only) ?? 0) + 1);
}
const servers = new Set([...asked].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 49).map(([s]) => s));
const github: DatasetTool[] = readTools(GITHUB_CATALOG, "github").map((t) => ({ ...t, server: "github" }));
const fleetTools = [...seal.filter((t) => servers.has(t.server)), ...github];
const manifests = inMemoryManifests(fleetTools, SEAL_DIR).map((m) => ({
  ...m,
  requireConfirm: true,
  readonlyTools: ((m.adapter as unknown as { tools: DatasetTool[] }).tools ?? []).filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name),
}));
const prefixOfServer = new Map(manifests.map((m) => [m.name, m.prefix]));
const serverOfTool = new Map(fleetTools.map((t) => [t.name, t.server]));

const sealQueries = allSealQueries
  .filter((q) => serverOfTool.has(q.relevant[0] ?? ""))
  .slice(0, 80)
  .map((q) => ({ query: q.query, prefix: prefixOfServer.get(serverOfTool.get(q.relevant[0] ?? "") ?? "") ?? "" }));
const githubQueries = readQueries(benchData("github-queries.jsonl"))
  .slice(0, 100 - sealQueries.length)
  .map((q) => ({ query: q.query, prefix: prefixOfServer.get("github") ?? "github" }));
const queries = [...sealQueries, ...githubQueries];

const runtime = await createRuntime({ manifests, adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, log: silentLogger, env: {} });
const facade = await linkFacade(runtime, "answer-cost");
try {
  const oneLine: number[] = [];
  const pretty: number[] = [];
  let overBudget = 0;
  let errors = 0;
  for (const { query, prefix } of queries) {
    const { payload, text, isError } = await facade.call(`agent_tools_${prefix}_discover`, { query });
    if (isError) errors += 1;
    const tokens = countTokens(text);
    oneLine.push(tokens);
    pretty.push(countTokens(JSON.stringify(payload, null, 2)));
    if (tokens > DISCOVER_TOKEN_BUDGET) overBudget += 1;
  }
  const listing: number[] = [];
  for (const m of manifests) listing.push(countTokens((await facade.call(`agent_tools_${m.prefix}_discover`, {})).text));

  const missing: number[] = [];
  const wrongType: number[] = [];
  const ghPrefix = prefixOfServer.get("github") ?? "github";
  for (const tool of github) {
    const schema = tool.inputSchema as { required?: string[]; properties?: Record<string, { type?: string; enum?: unknown[] }> };
    const field = (schema.required ?? []).find((r) => schema.properties?.[r]?.type === "string");
    if (!field) continue;
    const args: Record<string, unknown> = {};
    for (const r of schema.required ?? []) args[r] = schema.properties?.[r]?.enum ? schema.properties[r]?.enum?.[0] : schema.properties?.[r]?.type === "number" || schema.properties?.[r]?.type === "integer" ? 1 : schema.properties?.[r]?.type === "boolean" ? true : schema.properties?.[r]?.type === "array" ? [] : schema.properties?.[r]?.type === "object" ? {} : "x";
    // A one-field mistake needs a valid call to start from: tools whose required fields this
    // simple filler cannot satisfy (an array with minItems) are skipped.
    const baseline = await facade.call(`agent_tools_${ghPrefix}_call`, { toolName: tool.name, arguments: args, confirm: true });
    if (baseline.payload.error?.code === "ARG_VALIDATION_FAILED") continue;
    const { [field]: _left, ...without } = args;
    const a = await facade.call(`agent_tools_${ghPrefix}_call`, { toolName: tool.name, arguments: without, confirm: true });
    if (a.payload.error?.code === "ARG_VALIDATION_FAILED") missing.push(countTokens(a.text));
    const b = await facade.call(`agent_tools_${ghPrefix}_call`, { toolName: tool.name, arguments: { ...args, [field]: 42 }, confirm: true });
    if (b.payload.error?.code === "ARG_VALIDATION_FAILED") wrongType.push(countTokens(b.text));
    if (process.env.SHOW_WORST && countTokens(b.text) > 150) console.log(b.text);
    if (process.env.SHOW_WORST && countTokens(a.text) > 150) console.log(a.text);
  }

  const fmt = (s: ReturnType<typeof stats>) => `min ${s.min}  median ${s.median}  p90 ${s.p90}  max ${s.max}`;
  console.log(`fleet: ${manifests.length} servers, ${fleetTools.length} tools (49 Seal-Tools servers + GitHub MCP server, ${github.length} tools)`);
  console.log(`_discover, ${queries.length} queries (${sealQueries.length} Seal-Tools, ${githubQueries.length} GitHub), tokens o200k of the text shown:`);
  console.log(`  one-line JSON (sent)      ${fmt(stats(oneLine))}`);
  console.log(`  same payload indented     ${fmt(stats(pretty))}   (median ratio ${(stats(pretty).median / stats(oneLine).median).toFixed(2)}x)`);
  console.log(`  budget ${DISCOVER_TOKEN_BUDGET}: ${overBudget} over; ${errors} error answers`);
  console.log(`_discover without a query, each of the ${manifests.length} plugins: ${fmt(stats(listing))}`);
  console.log(`validation error, one required field left out (${missing.length} GitHub tools): ${fmt(stats(missing))}`);
  console.log(`validation error, one field of the wrong type (${wrongType.length} GitHub tools): ${fmt(stats(wrongType))}`);
  const goal = stats(oneLine).median <= 250 && overBudget === 0 && Math.max(...missing, ...wrongType) <= 150;
  console.log(`goals (median discover <= 250, none over budget, one-field validation error <= 150): ${goal ? "met" : "NOT met"}`);
} finally {
  await facade.close();
  await runtime.close();
}
