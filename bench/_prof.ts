import { readTools } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { splitWords } from "../src/runtime/search/tokenize.js";
import type { SearchDocument } from "../src/runtime/search/types.js";
const vocab = [...new Set(readTools("/work/shared/data/catalogs/github-mcp-server.tools.json").flatMap((t) => splitWords(`${t.name} ${t.description}`)).filter((w) => w.length > 2))];
let seed = 1; const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const pick = () => vocab[Math.floor(rnd() * vocab.length)]!;
const groups = new Map<string, SearchDocument[]>();
for (let i = 0; i < 100000; i++) {
  const plugin = `svc${Math.floor(i / 50)}`;
  const d = groups.get(plugin) ?? []; groups.set(plugin, d);
  d.push(toolDocument(plugin, `${plugin} ${pick()} ${pick()}`, { name: `get_${pick()}_${pick()}_${i}`, description: Array.from({ length: 15 }, pick).join(" "), inputSchema: { type: "object", properties: { [pick()]: { type: "string", description: `${pick()} ${pick()} ${pick()}` }, [pick()]: { type: "string", description: `${pick()} ${pick()}` } } } }));
}
const c0 = process.cpuUsage();
const index = createBm25fIndex();
for (const [p, d] of groups) index.setPluginDocuments(p, d);
const c = process.cpuUsage(c0);
console.log("build cpu ms", (c.user + c.system) / 1000);
