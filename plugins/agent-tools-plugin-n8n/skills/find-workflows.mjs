import { namePatternMatcher, onlyKnown, optionalBoolean, optionalInt, optionalString } from "../lib/args.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

/**
 * The whole workflow catalog over REST (n8n pages GET /workflows by 100 with cursor/nextCursor),
 * filtered and paged here. n8n's MCP search_workflows stops at 200 and has no active filter.
 */
export const meta = {
  description: "Find workflows across the whole catalog (every REST page, not the 200 that search_workflows caps at), by active state and name pattern, answered in pages.",
  args: {
    active: "optional boolean: only active (true) or inactive (false) workflows",
    namePattern: "optional: text found anywhere in the name, or a glob with * and ? over the whole name; case-insensitive",
    page: "optional page number of the answer, from 1 (default 1)",
    pageSize: "optional workflows per answer page, 1-250 (default 50)",
    url: URL_ARG,
  },
  related: [{ target: "n8n:delete-workflows-bulk", why: "delete what a filter matched" }],
};

const ARGS = ["active", "namePattern", "page", "pageSize"];

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ARGS, "skill 'find-workflows'");
  const active = optionalBoolean(args, "active");
  const pattern = optionalString(args, "namePattern");
  const page = optionalInt(args, "page", { min: 1 }) ?? 1;
  const pageSize = optionalInt(args, "pageSize", { min: 1, max: 250 }) ?? 50;
  const { items, pages, complete } = await rest.listAll("/workflows", active === undefined ? {} : { active });
  const matches = namePatternMatcher(pattern);
  const found = items.filter((w) => matches(w?.name)).sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const pageCount = Math.max(1, Math.ceil(found.length / pageSize));
  const shown = found.slice((page - 1) * pageSize, page * pageSize).map(summarise);
  return {
    total: found.length,
    scanned: items.length,
    restPages: pages,
    ...(complete ? {} : { incomplete: "the catalog was larger than the scan limit; narrow with active" }),
    page,
    pageSize,
    pages: pageCount,
    ...(page < pageCount ? { next: { page: page + 1 } } : {}),
    workflows: shown,
  };
}

export function summarise(w) {
  return {
    id: w.id,
    name: w.name,
    active: w.active === true,
    ...(w.updatedAt ? { updatedAt: w.updatedAt } : {}),
    ...(Array.isArray(w.tags) && w.tags.length ? { tags: w.tags.map((t) => t?.name ?? t) } : {}),
    ...(Array.isArray(w.nodes) ? { nodes: w.nodes.length } : {}),
  };
}
