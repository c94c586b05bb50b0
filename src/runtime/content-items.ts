import { isPlainObject } from "../plain-object.js";

/**
 * What is wrong with an item of a result's `content` list, said short and with its index
 * (`content[1] is null`), for the UPSTREAM_ERROR that names it. One place for both checks: the
 * pipeline's (any adapter's CallToolResult) and the MCP client's (a downstream's tools/call
 * answer, which the SDK's schema would otherwise refuse with a dump of every union branch).
 */

/** An item said in a few words: what it is when it is not an object with a string `type`. */
function notAnItem(item: unknown): string | undefined {
  if (isPlainObject(item) && typeof item.type === "string") return undefined;
  if (item === null) return "null";
  if (Array.isArray(item)) return "an array";
  if (typeof item !== "object") return `${typeof item} ${String(item).slice(0, 40)}`;
  return "an object without a string `type`";
}

/** The first item that is not an object with a string `type`, said with its index; undefined when all are. */
export function malformedItem(content: readonly unknown[]): string | undefined {
  for (let index = 0; index < content.length; index++) {
    const what = notAnItem(content[index]);
    if (what) return `content[${index}] is ${what}`;
  }
  return undefined;
}

/** The string fields each MCP content type must have. */
const REQUIRED: Record<string, readonly string[]> = {
  text: ["text"],
  image: ["data", "mimeType"],
  audio: ["data", "mimeType"],
  resource_link: ["uri", "name"],
  resource: [],
};

/**
 * The first item of an MCP tools/call answer's `content` that MCP does not allow: not an object
 * with a string `type`, a type MCP does not have, or a required field missing. Undefined when every
 * item is one MCP knows (the answer's fault is elsewhere then).
 */
export function mcpItemProblem(content: readonly unknown[]): string | undefined {
  const malformed = malformedItem(content);
  if (malformed) return malformed;
  for (let index = 0; index < content.length; index++) {
    const item = content[index] as { type: string; [k: string]: unknown };
    const shown = JSON.stringify(item.type.slice(0, 40)).slice(1, -1);
    const required = REQUIRED[item.type];
    if (!required) return `content[${index}] has type '${shown}', which MCP does not have (text, image, audio, resource, resource_link)`;
    const missing = required.find((key) => typeof item[key] !== "string");
    if (missing) return `content[${index}] (type '${shown}') has no string \`${missing}\``;
    if (item.type === "resource" && !(isPlainObject(item.resource) && typeof item.resource.uri === "string")) return `content[${index}] (type 'resource') has no \`resource\` object with a string \`uri\``;
  }
  return undefined;
}
