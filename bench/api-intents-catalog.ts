import { writeFileSync } from "node:fs";
import { readTools } from "../src/cli/retrieval-data.js";
import { SEAL_DIR } from "./retrieval-kit.js";

/**
 * The catalog of the API-intents dev set (bench/data/api-intents.jsonl): the Seal-Tools tools
 * (Apache-2.0; not in this repository, read from $SEAL_TOOLS_DIR) of 22 everyday business fields,
 * 449 tools. Short intents ("throw a wedding") that each need several of them, written by hand
 * from this tool list before any ranking was run on them. Made on the fly, so the repository
 * holds only the queries and this selection.
 * Run: node --import tsx bench/api-intents-catalog.ts OUT.json
 */

export const API_INTENT_FIELDS = [
  "Travel and Tourism", "Tourism", "Travel", "Hospitality", "Hospitality Management", "Event Management",
  "Finance", "Accounting", "E-commerce", "Retail", "Customer Service", "Human Resources", "Logistics",
  "Supply Chain", "Real Estate", "Food and Beverage", "Fitness", "Nutrition", "Insurance", "Transportation",
  "Social Media", "Digital Marketing",
];

export function apiIntentTools(sealDir = SEAL_DIR) {
  return readTools(`${sealDir}/tools.json`).filter((t) => API_INTENT_FIELDS.includes(t.server.split("/")[0]!));
}

const out = process.argv[2];
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("api-intents-catalog.ts")) {
  if (!out) {
    console.error("usage: node --import tsx bench/api-intents-catalog.ts OUT.json (writes the 449-tool catalog of bench/data/api-intents.jsonl)");
    process.exit(2);
  }
  const tools = apiIntentTools();
  writeFileSync(out, JSON.stringify(tools));
  console.error(`${tools.length} tools written to ${out}`);
}
