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

/** Words in most tool descriptions that say nothing of a domain: verbs of any tool, filler. */
const GENERIC = new Set(
  "use used uses tool tools get gets list lists create creates new multiple specific existing given provided return returns returned based single one two more also only all each any via way such when must may will should if not no then than other set sets make makes add adds run runs value values name names id ids data information info details detail result results type types within allowed work works working delete deletes remove removes update updates operation operations specified optional default including include includes their them they answer answers answered send sends sent never after before call calls write writes read reads show shows start starts stop stops change changes take takes".split(" "),
);

const KEYWORDS = 6;
/** Tool names a description lists when no word is shared widely enough to say what the tools are on. */
const NAMES_LISTED = 4;

function meaningful(words: readonly string[]): string[] {
  return words.filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !GENERIC.has(w) && !/^\d+$/.test(w));
}

/** How many tools use each word (by stem: "file" and "files" are one), shown as first met. */
function shared(tools: readonly ToolDescriptor[], wordsOf: (tool: ToolDescriptor) => string[]): Array<{ word: string; n: number }> {
  const frequency = new Map<string, { word: string; n: number }>();
  for (const tool of tools) {
    const words = meaningful(wordsOf(tool));
    for (const stemmed of new Set(words.map(stem))) {
      const seen = frequency.get(stemmed);
      if (seen) seen.n += 1;
      else frequency.set(stemmed, { word: words.find((w) => stem(w) === stemmed)!, n: 1 });
    }
  }
  return [...frequency.values()].sort((a, b) => b.n - a.n);
}

/**
 * The words most of a server's tools share, most shared first ("knowledge, graph, entities,
 * relations"). Words of the tool names (split on `_` and case) count from two tools and come
 * first on a tie: they name what the tools act on. A description word counts only when a third of
 * the tools use it: two sentences sharing a word ("Never answers", "Answers after…") say nothing
 * of the server.
 */
function toolKeywords(tools: readonly ToolDescriptor[], count = KEYWORDS): string[] {
  const few = tools.length < 3;
  const fromNames = shared(tools, (tool) => splitWords(tool.name)).filter(({ n }) => n >= 2 || few);
  const fromDescriptions = shared(tools, (tool) => splitWords(tool.description ?? "")).filter(({ n }) => (n >= 2 && n * 3 >= tools.length) || few);
  // Most shared first; on a tie, a word of the names before one of the descriptions.
  const ranked = [...fromNames.map((w) => ({ ...w, named: 1 })), ...fromDescriptions.map((w) => ({ ...w, named: 0 }))].sort((a, b) => b.n - a.n || b.named - a.named);
  const keywords: string[] = [];
  for (const { word } of ranked) {
    if (keywords.length >= count) break;
    if (!keywords.some((k) => stem(k) === stem(word))) keywords.push(word);
  }
  return keywords;
}

/** "7 tools on a, b" from shared words; without any, a few of the tools' names ("7 tools: echo, pid, env, crash, …"). */
function toolsLine(tools: readonly ToolDescriptor[]): string {
  if (!tools.length) return "";
  const keywords = toolKeywords(tools);
  if (keywords.length) return `${tools.length} tools on ${keywords.join(", ")}`;
  const names = tools.slice(0, NAMES_LISTED).map((t) => t.name);
  return `${tools.length} tool${tools.length === 1 ? "" : "s"}: ${names.join(", ")}${tools.length > NAMES_LISTED ? ", …" : ""}`;
}

/** One line (≤ ~160 characters) for help, instructions and the plugin's _discover description. */
export function pluginAbout(server: ServerDescription | undefined, tools: readonly ToolDescriptor[]): string | undefined {
  const own = server?.description ? firstSentence(server.description, 100) : server?.title ? firstSentence(server.title, 60) : server?.instructions ? firstSentence(server.instructions, 100) : "";
  const about = [own, toolsLine(tools)].filter(Boolean).join("; ");
  return about || undefined;
}
