import { splitWords } from "../tokenize.js";
import type { SearchDocument } from "../types.js";

/**
 * The sentence a tool or skill is embedded as: its name in words, its description (the first few
 * hundred characters: the model's cost grows faster than the text, and the opening says what the
 * tool is for), its parameter names, and a short tag of its plugin.
 */

const DESCRIPTION_CHARS = 300;
const PLUGIN_CHARS = 80;

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

export function embeddingText(doc: SearchDocument): string {
  const name = splitWords(doc.name).join(" ");
  const title = doc.fields.title && doc.fields.title.toLowerCase() !== name ? ` (${cut(doc.fields.title, 60)})` : "";
  const description = cut(doc.fields.description ?? "", DESCRIPTION_CHARS);
  const params = doc.paramNames?.length ? ` Parameters: ${doc.paramNames.map((p) => splitWords(p).join(" ")).join(", ")}.` : "";
  const plugin = doc.fields.plugin ? ` [${cut(doc.fields.plugin, PLUGIN_CHARS)}]` : "";
  return `${name}${title}: ${description}${params}${plugin}`;
}
