import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * Page-numbered pagination against a real local HTTP server, through the built server over stdio.
 * The service holds 45 notes and caps `per_page` at 20, as many APIs do, while the plugin asks for
 * 50: a first page of 20 is the cap, not the end, and every note comes back. A result says
 * `complete: true` only when the end is certain; a service that answers a page past the last with
 * 404 or with the last page again leaves it unconfirmed, and the result says so.
 */

const NOTES = Array.from({ length: 45 }, (_, i) => ({ id: i + 1 }));

interface Paged {
  items: { id: number }[];
  pages: number;
  complete: boolean;
  stoppedBecause?: string;
  stoppedDetail?: string;
}

describe("page pagination: a page shorter than perPage is not taken for the last", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-page-end-"));
  let backend: TestServer;
  let agent: Connected;
  before(async () => {
    backend = await startServer((req, res) => {
      const url = new URL(req.url, "http://backend");
      const page = Number(url.searchParams.get("page") ?? "1");
      // /capped: at most 20 a page; the others up to 100, so the 45 notes fit on a page of 50.
      const cap = url.pathname.endsWith("/capped") ? 20 : 100;
      const size = Math.min(Number(url.searchParams.get("per_page") ?? "10"), cap);
      const last = Math.max(1, Math.ceil(NOTES.length / size));
      if (url.pathname.endsWith("/strict") && page > last) return sendJson(res, 404, { detail: "Invalid page." });
      // /clamped answers any page past the last with the last page.
      const shown = url.pathname.endsWith("/clamped") ? Math.min(page, last) : page;
      const notes = NOTES.slice((shown - 1) * size, shown * size);
      return sendJson(res, 200, { notes, total: NOTES.length, has_more: shown * size < NOTES.length });
    });
    const paginate = { style: "page", param: "page", perPageParam: "per_page", itemsPath: "notes" };
    writePlugin(path.join(dir, "agent-tools-plugin-notes"), {
      name: "notes",
      prefix: "notes",
      description: "A notes service (tests only)",
      adapter: {
        kind: "rest",
        baseUrl: `${backend.url}/v1`,
        tools: [
          { name: "capped", path: "/capped", paginate: { ...paginate, perPage: 50 } },
          { name: "roomy", path: "/roomy", paginate: { ...paginate, perPage: 50 } },
          { name: "strict", path: "/strict", paginate: { ...paginate, perPage: 50 } },
          { name: "clamped", path: "/clamped", paginate: { ...paginate, perPage: 50 } },
          { name: "one_page", path: "/capped", paginate: { ...paginate, perPage: 50, maxPages: 1 } },
          { name: "has_more", path: "/roomy", paginate: { ...paginate, perPage: 50, hasMorePath: "has_more" } },
          { name: "total", path: "/capped", paginate: { ...paginate, perPage: 15, totalPath: "total" } },
          { name: "total_capped", path: "/capped", paginate: { ...paginate, perPage: 10, totalPath: "total", maxPages: 2 } },
          { name: "untold_capped", path: "/capped", paginate: { ...paginate, perPage: 10, maxPages: 2 } },
        ],
      },
    });
    agent = await connect(dir);
  });
  after(async () => {
    await agent?.close();
    await backend?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function list(tool: string): Promise<{ result: Paged; pagesAsked: string[] }> {
    const from = backend.requests.length;
    const { payload, isError } = await callJson(agent.client, "agent_tools_notes_call", { toolName: tool });
    assert.equal(isError, false, JSON.stringify(payload));
    const pagesAsked = backend.requests.slice(from).map((r) => new URL(r.url, "http://backend").searchParams.get("page") ?? "");
    return { result: payload.result as Paged, pagesAsked };
  }

  it("a service that caps per_page below perPage: every note is read, and complete only then", async () => {
    const { result, pagesAsked } = await list("capped");
    assert.deepEqual(result.items, NOTES, "the 25 notes after the capped first page are read");
    assert.deepEqual([result.pages, result.complete, result.stoppedBecause], [3, true, undefined]);
    // 20, 20, 5: the third page is shorter than the two before it, so the service's size is known and it is the last.
    assert.deepEqual(pagesAsked, ["1", "2", "3"]);
  });

  it("a short first page that is the whole list costs one request more: the empty next page confirms it", async () => {
    const { result, pagesAsked } = await list("roomy");
    assert.deepEqual(result.items, NOTES);
    assert.equal(result.complete, true);
    assert.deepEqual(pagesAsked, ["1", "2"]);
  });

  it("a short first page whose check answers 404 (past the last page) is kept, not called complete", async () => {
    const { result, pagesAsked } = await list("strict");
    assert.deepEqual(pagesAsked, ["1", "2"]);
    assert.deepEqual(result.items, NOTES, "the page read is kept, not lost to the 404");
    assert.deepEqual([result.pages, result.complete, result.stoppedBecause], [1, false, "lastPageUnconfirmed"]);
    assert.match(result.stoppedDetail ?? "", /page 1 held 45 items, fewer than the 50 asked for, so it was probably the last; page 2, read to make sure, answered HTTP 404/);
    assert.match(result.stoppedDetail ?? "", /hasMorePath or totalPath/);
  });

  it("a service that answers a page past the last with that page again: no copies, marked unconfirmed", async () => {
    const { result, pagesAsked } = await list("clamped");
    assert.deepEqual(pagesAsked, ["1", "2"]);
    assert.deepEqual(result.items, NOTES, "page 2 (page 1 again) is left out");
    assert.deepEqual([result.pages, result.complete, result.stoppedBecause], [1, false, "lastPageUnconfirmed"]);
    assert.match(result.stoppedDetail ?? "", /page 2 held the same items as page 1/);
  });

  it("maxPages reached on a short first page says the end was not confirmed", async () => {
    const { result, pagesAsked } = await list("one_page");
    assert.deepEqual(result.items, NOTES.slice(0, 20));
    assert.deepEqual([result.pages, result.complete, result.stoppedBecause], [1, false, "maxPages"]);
    assert.match(result.stoppedDetail ?? "", /page 1 held 20 items, fewer than the 50 asked for, so it was probably the last, but maxPages \(1\) was reached/);
    assert.deepEqual(pagesAsked, ["1"]);
  });

  it("hasMorePath: the service's has_more: false ends it, with no page read to check", async () => {
    const { result, pagesAsked } = await list("has_more");
    assert.deepEqual(result.items, NOTES);
    assert.equal(result.complete, true);
    assert.deepEqual(pagesAsked, ["1"], "45 of the 50 asked for, and has_more false: certain without page 2");
  });

  it("totalPath: reading ends once the service's total is read, without an empty page after full ones", async () => {
    const { result, pagesAsked } = await list("total");
    assert.deepEqual(result.items, NOTES);
    assert.equal(result.complete, true);
    // 15, 15, 15: every page full, so only the total says page 3 is the last.
    assert.deepEqual(pagesAsked, ["1", "2", "3"]);
  });

  it("maxPages reached on full pages: stoppedDetail says how much was read (of the total, when the service says it) and how to get the rest", async () => {
    const told = await list("total_capped");
    assert.deepEqual(told.result.items, NOTES.slice(0, 20));
    assert.deepEqual([told.result.pages, told.result.complete, told.result.stoppedBecause], [2, false, "maxPages"]);
    assert.equal(told.result.stoppedDetail, "read 20 of 45 items in 2 pages, the most one call reads (maxPages). For the rest ask for larger pages ('per_page') or filter the list; or tell the user the plugin's paginate.maxPages can be raised.");
    assert.deepEqual(told.pagesAsked, ["1", "2"]);
    // Without totalPath the count of all is not known: only what was read is said.
    const untold = await list("untold_capped");
    assert.match(untold.result.stoppedDetail ?? "", /^read 20 items in 2 pages, the most one call reads \(maxPages\)\. For the rest ask for larger pages/);
  });
});
