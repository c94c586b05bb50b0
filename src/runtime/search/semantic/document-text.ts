import { splitWords } from "../tokenize.js";
import type { SearchDocument } from "../types.js";

/**
 * The sentence a tool or skill is embedded as: its name in words, its title, and the opening of its
 * description, cut at a word boundary (parameter names only when there is no description). The
 * model's cost grows with a text's length (about 0.5 ms of CPU a word piece), so the text keeps
 * what tells tools apart for the model: what the tool is for, said first. Parameter names and the
 * rest of the description stay with BM25F, which indexes them anyway.
 *
 * Against the former recipe (150 characters and the parameter names) this embeds 2.2× fewer
 * pieces on the synthetic 10,000-tool catalog (17.6 instead of 38 a tool) at the same Recall@5 on
 * the dev set (59.8%). The cut is the shortest that keeps both tuning sets where 60 characters
 * had them (docs/search-log.md "Semantic search"): 55 characters, 5% fewer pieces than 60 at the same dev-set
 * R@5 (59.8%, 1.39×) and C@10 (53.3%), Seal-Tools (all 700 queries) 93.3% against 93.5%; at 50
 * the dev set falls to 59.3%, at 52–53 its C@10 to 51.1%.
 */

export const DESCRIPTION_CHARS = 55;

/** `text` on one line, at most `max` characters, cut at the last space past half of it. */
function opening(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return space > max / 2 ? cut.slice(0, space) : cut;
}

export function embeddingText(doc: SearchDocument): string {
  const name = splitWords(doc.name).join(" ");
  const title = doc.fields.title && doc.fields.title.toLowerCase() !== name ? ` (${doc.fields.title.replace(/\s+/g, " ").trim().slice(0, 60)})` : "";
  const description = opening(doc.fields.description ?? "", DESCRIPTION_CHARS);
  if (description) return `${name}${title}: ${description}`;
  const params = doc.paramNames?.length ? ` Parameters: ${doc.paramNames.map((p) => splitWords(p).join(" ")).join(", ")}.` : "";
  return `${name}${title}:${params}`;
}

/**
 * The text of a query as the model is given it: lower case when it is typed in capitals (more
 * upper-case letters than lower-case ones), else as typed. The model's word pieces are
 * case-sensitive and learnt from ordinary text, so a shouted query ("CREATE AN ISSUE") became rare
 * pieces far from every tool (GitHub set upper-cased: R@1 61.3% → 40.0%, 7 December). Ordinary
 * queries keep their case, like the tools' descriptions (embeddingText): lowering every query
 * measured worse (GitHub R@5 85.0% → 82.5%, dev set 63.9% → 63.1%), since sentence case and
 * acronyms ("PR", "SLA") are what the model saw in training.
 */
export function modelQueryText(query: string): string {
  const upper = query.replace(/[^\p{Lu}]/gu, "").length;
  const lower = query.replace(/[^\p{Ll}]/gu, "").length;
  return upper > lower ? query.toLowerCase() : query;
}
