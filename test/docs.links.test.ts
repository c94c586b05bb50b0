import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// The README and docs/*.md link into each other by heading anchors. Sections move between them
// (the measurement history went to docs/), and a moved heading silently breaks every link to it:
// GitHub just shows the top of the page. This checks every relative link of those files.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DOCS = path.join(ROOT, "docs");
const FILES = [path.join(ROOT, "README.md"), ...readdirSync(DOCS).filter((f) => f.endsWith(".md")).map((f) => path.join(DOCS, f))];

/** GitHub's anchor for a heading: lower case, punctuation dropped (except - and _), spaces to '-'. */
export function slug(heading: string): string {
  return heading.replace(/<[^>]+>/g, "").trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, "").replace(/ /g, "-");
}

/** The text outside fenced code blocks, line by line (a code block's `# comment` is no heading). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = proseLines(readFileSync(file, "utf8"));
  for (const line of lines) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) {
      // A repeated heading gets -1, -2, … as on GitHub.
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** Every Markdown link target of the prose (inline code spans left out). */
function linksOf(file: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    for (const link of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) targets.push(link[1]!);
  }
  return targets;
}

describe("links of the README and docs/", () => {
  it("computes anchors as GitHub does", () => {
    assert.equal(slug("The config file and `mcpServers`"), "the-config-file-and-mcpservers");
    assert.equal(slug("Session 5: the hot path's allocation"), "session-5-the-hot-paths-allocation");
    assert.equal(slug("Traces (OpenTelemetry, optional)"), "traces-opentelemetry-optional");
    assert.equal(slug("Cold cache: the 50-server listing and the first start's memory"), "cold-cache-the-50-server-listing-and-the-first-starts-memory");
    assert.equal(slug("agent_tools_search"), "agent_tools_search");
  });

  for (const file of FILES) {
    const name = path.relative(ROOT, file);
    it(`every relative link of ${name} reaches a file and, with an anchor, a heading of it`, () => {
      const broken: string[] = [];
      const links = linksOf(file).filter((target) => !/^[a-z]+:/i.test(target));
      assert.ok(links.length > 0, `${name} has relative links to check`);
      for (const target of links) {
        const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
        const targetFile = pathPart === "" ? file : path.resolve(path.dirname(file), pathPart);
        if (!existsSync(targetFile)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && targetFile.endsWith(".md") && !anchorsOf(targetFile).has(anchor)) {
          broken.push(`${target}: no heading with that anchor in ${path.relative(ROOT, targetFile)}`);
        }
      }
      assert.deepEqual(broken, [], `broken links in ${name}`);
    });
  }

  it("the README links every file of docs/", () => {
    const linked = new Set(linksOf(path.join(ROOT, "README.md")).map((target) => target.split("#")[0]));
    const unlinked = FILES.filter((file) => file.startsWith(DOCS)).map((file) => path.relative(ROOT, file)).filter((doc) => !linked.has(doc));
    assert.deepEqual(unlinked, [], "docs files the README never points to");
  });
});
