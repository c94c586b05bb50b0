import type { ServerDescription, ToolDescriptor } from "../adapters/types.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import { hasGenericDescription, serverText } from "./plugin-about.js";
import { withDeadline } from "./result.js";
import type { SearchDocument, ToolIndex } from "./search/index.js";

/**
 * Each plugin's tool list, read from its adapter on first need and kept until invalidated (a
 * downstream `list_changed`). The search index is fed from here, so it changes with the catalog.
 */

export interface Catalog {
  tools(plugin: LoadedPlugin): Promise<ToolDescriptor[]>;
  /** The cached list, if it has been read. */
  cached(prefix: string): ToolDescriptor[] | undefined;
  invalidate(prefix: string): void;
}

export function schemaText(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (!properties || typeof properties !== "object") return "";
  return Object.entries(properties as Record<string, unknown>)
    .map(([name, spec]) => {
      const description = spec && typeof spec === "object" ? (spec as Record<string, unknown>).description : undefined;
      return typeof description === "string" ? `${name} ${description}` : name;
    })
    .join(" ");
}

/**
 * The string values of small enums: servers that fold several operations into one tool
 * (`issue_write` with `method: "create" | "update"`) name the operations only there.
 */
export function enumText(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (!properties || typeof properties !== "object") return "";
  const values: string[] = [];
  for (const spec of Object.values(properties as Record<string, unknown>)) {
    const list = spec && typeof spec === "object" ? (spec as Record<string, unknown>).enum : undefined;
    if (Array.isArray(list) && list.length <= MAX_ENUM_VALUES) values.push(...list.filter((v): v is string => typeof v === "string"));
  }
  return values.join(" ");
}

const MAX_ENUM_VALUES = 12;

/** The human-readable title, top level or in annotations (MCP allows both). */
function titleOf(tool: ToolDescriptor): string | undefined {
  return tool.title ?? (typeof tool.annotations?.title === "string" ? tool.annotations.title : undefined);
}

function skillArgsText(args: Record<string, unknown> | undefined): string {
  if (!args) return "";
  if (args.properties && typeof args.properties === "object") return schemaText(args);
  return Object.entries(args)
    .map(([name, value]) => (typeof value === "string" ? `${name} ${value}` : name))
    .join(" ");
}

/** A skill's `related` links name the tools and skills it goes with, and why: words a query for either may use. */
function relatedText(related: readonly { target: string; why?: string }[] | undefined): string {
  return (related ?? []).map((r) => `${r.target.split(":").pop() ?? r.target} ${r.why ?? ""}`.trim()).join(" ");
}

function skillParamNames(args: Record<string, unknown> | undefined): string[] {
  if (!args) return [];
  return args.properties && typeof args.properties === "object" ? Object.keys(args.properties) : Object.keys(args);
}

export function pluginSearchText(plugin: LoadedPlugin, server?: ServerDescription): string {
  const { name, description, discoverHint, prefix } = plugin.manifest;
  // A description we made up ("MCP server 'x' (node over stdio)") says nothing of the domain: the
  // server's own words replace it. A config entry's name is often its prefix; the same words
  // twice would only inflate the field.
  const own = hasGenericDescription(plugin.manifest) ? undefined : description;
  return [...new Set([prefix, name, own, discoverHint, serverText(server)].filter(Boolean))].join(" ");
}

/** One tool's search document: its name (and title), description, parameters and its plugin's text. */
export function toolDocument(prefix: string, pluginText: string, tool: ToolDescriptor): SearchDocument {
  return {
    plugin: prefix,
    kind: "tool",
    name: tool.name,
    fields: {
      name: tool.name,
      ...(titleOf(tool) ? { title: titleOf(tool) } : {}),
      description: tool.description ?? "",
      params: schemaText(tool.inputSchema),
      values: enumText(tool.inputSchema),
      plugin: pluginText,
    },
    paramNames: propertyNames(tool.inputSchema),
  };
}

function propertyNames(schema: Record<string, unknown> | undefined): string[] {
  const properties = schema?.properties;
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

export function documentsFor(plugin: LoadedPlugin, tools: readonly ToolDescriptor[], server?: ServerDescription): SearchDocument[] {
  const pluginText = pluginSearchText(plugin, server);
  const prefix = plugin.manifest.prefix;
  return [
    ...tools.map((tool) => toolDocument(prefix, pluginText, tool)),
    ...plugin.skills.map((skill) => ({
      plugin: prefix,
      kind: "skill" as const,
      name: skill.name,
      fields: { name: skill.name, description: skill.meta.description, params: skillArgsText(skill.meta.args), values: relatedText(skill.meta.related), plugin: pluginText },
      paramNames: skillParamNames(skill.meta.args),
    })),
  ];
}

/** Keep only well-formed descriptors: a bad entry from one adapter must not break discovery. */
function sanitise(tools: unknown): ToolDescriptor[] {
  if (!Array.isArray(tools)) throw new Error("listTools() did not return { tools: [...] }");
  return tools
    .filter((t): t is ToolDescriptor => !!t && typeof t === "object" && typeof (t as ToolDescriptor).name === "string" && (t as ToolDescriptor).name.length > 0)
    .map((t) => ({ ...t, inputSchema: t.inputSchema && typeof t.inputSchema === "object" ? t.inputSchema : { type: "object" } }));
}

/**
 * `timeoutMs` bounds one listing: a module adapter's listTools() is plugin code and may hang, and
 * a hung listing would stall every discover, search and call of that plugin. A failed or timed-out
 * listing is not kept, so the next request tries again.
 */
export function createCatalog(index: ToolIndex, timeoutMs: number, onListed?: (plugin: LoadedPlugin, tools: ToolDescriptor[], server: ServerDescription | undefined) => void): Catalog {
  const lists = new Map<string, ToolDescriptor[]>();
  const pending = new Map<string, Promise<ToolDescriptor[]>>();
  return {
    cached: (prefix) => lists.get(prefix),
    invalidate(prefix) {
      lists.delete(prefix);
      pending.delete(prefix);
    },
    async tools(plugin) {
      const prefix = plugin.manifest.prefix;
      const known = lists.get(prefix);
      if (known) return known;
      let loading = pending.get(prefix);
      if (!loading) {
        if (!plugin.adapter) return [];
        const adapter = plugin.adapter;
        loading = (async () => {
          const listed = (await withDeadline(() => adapter.listTools(), timeoutMs, undefined, `listing the tools of plugin '${prefix}'`)) as { tools?: unknown } | undefined;
          const tools = sanitise(listed?.tools);
          // Only the current listing writes: one that an invalidate (tools/list_changed) overtook
          // must not cache the old catalog.
          if (pending.get(prefix) === loading) {
            lists.set(prefix, tools);
            const server = adapter.serverDescription?.();
            index.setPluginDocuments(prefix, documentsFor(plugin, tools, server));
            pending.delete(prefix);
            onListed?.(plugin, tools, server);
          }
          return tools;
        })();
        const current = loading;
        pending.set(prefix, current);
        current.catch(() => {
          if (pending.get(prefix) === current) pending.delete(prefix);
        });
      }
      return loading;
    },
  };
}
