import type { ServerDescription, ToolDescriptor } from "../adapters/types.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { splitWords, stem, STOP_WORDS } from "./search/tokenize.js";

/**
 * What a plugin is about, when its config says nothing: an `mcpServers` entry without a
 * `description` only had "MCP server 'x' (npx over stdio)", so neither our search nor a client's
 * own tool search could tell a knowledge-graph server from a filesystem one. Once the server has
 * been listed, its own words (serverInfo title/description, the first sentence of its
 * instructions) and the words its tools share ("knowledge graph, entities, relations") say it.
 */

/** An mcp config entry whose description was made up by us, not written by the user. */
export function hasGenericDescription(manifest: PluginManifest): boolean {
  return manifest.form === "config" && typeof manifest.adapter === "object" && manifest.adapter.kind === "mcp" && typeof manifest.raw.description !== "string";
}

function firstSentence(text: string, max: number): string {
  const flat = text.replace(/[#*_`>]+/g, " ").replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length > max ? `${sentence.slice(0, max - 1).trimEnd()}…` : sentence;
}

/** The server's words about itself, for the search index's plugin field (BM25F and embeddings). */
export function serverText(server: ServerDescription | undefined): string {
  if (!server) return "";
  return [server.title, server.description, server.instructions ? firstSentence(server.instructions, 300) : undefined].filter(Boolean).join(" ");
}

/** Words in most tool descriptions that say nothing of a domain. */
const GENERIC = new Set(
  "use used uses tool tools get gets list lists create creates new multiple specific existing given provided return returns returned based single one two more also only all each any via way such when must may will should if not no then than other set sets make makes add adds run runs value values name names id ids data information info details detail result results type types within allowed work works working delete deletes remove removes update updates operation operations specified optional default including include includes their them they".split(" "),
);

const KEYWORDS = 6;

/** The words most of a server's tools share, most shared first ("knowledge, graph, entities, relations"). */
function toolKeywords(tools: readonly ToolDescriptor[], count = KEYWORDS): string[] {
  // Counted by stem ("file" and "files" are one word), shown as first met.
  const frequency = new Map<string, { word: string; n: number }>();
  for (const tool of tools) {
    const words = [...splitWords(tool.name), ...splitWords(tool.description ?? "")].filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !GENERIC.has(w) && !/^\d+$/.test(w));
    for (const stemmed of new Set(words.map(stem))) {
      const seen = frequency.get(stemmed);
      if (seen) seen.n += 1;
      else frequency.set(stemmed, { word: words.find((w) => stem(w) === stemmed)!, n: 1 });
    }
  }
  return [...frequency.values()]
    .filter(({ n }) => n >= 2 || tools.length < 3)
    .sort((a, b) => b.n - a.n)
    .slice(0, count)
    .map(({ word }) => word);
}

/** One line (≤ ~160 characters) for help, instructions and the plugin's _discover description. */
export function pluginAbout(server: ServerDescription | undefined, tools: readonly ToolDescriptor[]): string | undefined {
  const own = server?.description ? firstSentence(server.description, 100) : server?.title ? firstSentence(server.title, 60) : server?.instructions ? firstSentence(server.instructions, 100) : "";
  const keywords = toolKeywords(tools);
  const about = [own, keywords.length ? `${tools.length} tools on ${keywords.join(", ")}` : ""].filter(Boolean).join("; ");
  return about || undefined;
}
