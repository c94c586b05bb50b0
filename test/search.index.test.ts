import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createToolIndex } from "../src/runtime/search/index.js";
import { splitWords, tokenize } from "../src/runtime/search/tokenize.js";

describe("search index", () => {
  it("splits snake, kebab, camel case and digits", () => {
    assert.deepEqual(splitWords("listIssues get_pr-v2 HTTPServer"), ["list", "issues", "get", "pr", "v", "2", "http", "server"]);
    assert.deepEqual(tokenize("Listing the issues"), ["list", "issue"]);
  });

  it("ranks a name match above a description match, filters by plugin and counts totals", () => {
    const index = createToolIndex();
    index.setPluginDocuments("gh", [
      { plugin: "gh", kind: "tool", name: "list_issues", fields: { name: "list_issues", description: "List issues of a repository." } },
      { plugin: "gh", kind: "tool", name: "get_repo", fields: { name: "get_repo", description: "Read a repository, with its open issue count." } },
      { plugin: "gh", kind: "skill", name: "triage", fields: { name: "triage", description: "Sort new issues by label." } },
    ]);
    index.setPluginDocuments("other", [{ plugin: "other", kind: "tool", name: "issues", fields: { name: "issues" } }]);
    const all = index.search("issues");
    assert.equal(all.total, 4);
    const gh = index.search("issues", { plugin: "gh", limit: 2 });
    assert.equal(gh.total, 3);
    assert.equal(gh.hits.length, 2);
    assert.equal(gh.hits[0]?.name, "list_issues");
    index.setPluginDocuments("gh", []);
    assert.equal(index.search("issues").total, 1, "replacing a plugin's documents updates the index");
    assert.equal(index.search("the of").total, 0, "stop words alone match nothing");
  });
});
