import { readFileSync } from "node:fs";
import type { ToolDescriptor } from "../adapters/types.js";

/**
 * The data format of ../shared/data/retrieval/: tools.json is [{name, description, inputSchema,
 * server}], queries.jsonl has one {id, query, relevant: [tool names]} per line. A GitHub-style
 * flat catalog (no `server`) is read as one server named after the file.
 */

export interface DatasetTool extends ToolDescriptor {
  server: string;
}

export interface DatasetQuery {
  id: string;
  query: string;
  relevant: string[];
}

/** A data file the user named is missing or malformed: said in one line naming the file. */
export class DatasetError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = "DatasetError";
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new DatasetError(file, missing ? "does not exist; check the path (relative paths are from the current folder)" : `cannot be read: ${(error as Error).message}`);
  }
}

export function readTools(file: string, defaultServer = "catalog"): DatasetTool[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readText(file));
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    throw new DatasetError(file, `is not valid JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { tools?: unknown })?.tools;
  if (!Array.isArray(list)) throw new DatasetError(file, "must be a JSON array of tools (or {tools: [...]}), each {name, description, inputSchema, server}");
  return list.map((raw, i) => {
    const t = raw as Partial<DatasetTool>;
    if (!t || typeof t.name !== "string" || !t.name) throw new DatasetError(file, `tool #${i} has no 'name' string`);
    return {
      ...t,
      name: t.name,
      description: typeof t.description === "string" ? t.description : "",
      inputSchema: t.inputSchema && typeof t.inputSchema === "object" ? t.inputSchema : { type: "object" },
      server: typeof t.server === "string" && t.server ? t.server : defaultServer,
    };
  });
}

export function readQueries(file: string): DatasetQuery[] {
  const queries = readText(file)
    .split("\n")
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line.length > 0)
    .map(({ line, number }) => {
      let q: Partial<DatasetQuery>;
      try {
        q = JSON.parse(line) as Partial<DatasetQuery>;
      } catch (error) {
        throw new DatasetError(file, `line ${number} is not valid JSON (${(error as Error).message})`);
      }
      if (typeof q.query !== "string" || !q.query.trim()) throw new DatasetError(file, `line ${number} has no 'query' string`);
      if (!Array.isArray(q.relevant) || !q.relevant.every((r) => typeof r === "string")) throw new DatasetError(file, `line ${number}: 'relevant' must be an array of tool names`);
      return { id: typeof q.id === "string" ? q.id : String(q.id ?? number), query: q.query, relevant: q.relevant };
    });
  // Metrics over no queries are 0% everywhere, which reads as a result: refuse it instead.
  if (!queries.length) throw new DatasetError(file, 'has no queries; write one JSON object a line, {"query": "…", "relevant": ["tool_name"]}');
  return queries;
}
