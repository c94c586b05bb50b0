import assert from "node:assert/strict";
import type http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";
import { sendJson, startServer, type Recorded, type TestServer } from "./fixtures/rest/http-server.js";

/**
 * A write tool that paginates (a search sent as a POST), through the built server over stdio,
 * against a real local HTTP server that honours Idempotency-Key (a key it has seen gets the answer
 * it stored for it, as Stripe and the IETF draft say) and paginates both ways (a page number, a
 * Link header). Each page is a request of its own with a key of its own: the items come back once
 * each, in full, not the first page again and again. A retry of the call whose last answer was
 * lost sends every page with the key it had, and the backend answers the lost page from its store.
 */

const ITEMS = ["a", "b", "c", "d", "e"];
const PER_PAGE = 2;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Stored {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The backend: its store of answers by key, which requests it answered from the store, and a page whose answer it loses once (after storing it). */
const store = new Map<string, Stored>();
const replayed: Recorded[] = [];
const lose = { page: undefined as string | undefined };

function answer(req: Recorded): Stored {
  const url = new URL(req.url, "http://backend");
  if (url.pathname === "/v1/search") {
    const page = Number(url.searchParams.get("page") ?? "1");
    const size = Number(url.searchParams.get("per_page") ?? "10");
    return { status: 200, headers: {}, body: ITEMS.slice((page - 1) * size, page * size) };
  }
  // Link style: a cursor, the next page's link while items remain.
  const cursor = Number(url.searchParams.get("cursor") ?? "0");
  const headers: Record<string, string> = cursor + PER_PAGE < ITEMS.length ? { link: `</v1/scan?cursor=${cursor + PER_PAGE}>; rel="next"` } : {};
  return { status: 200, headers, body: ITEMS.slice(cursor, cursor + PER_PAGE) };
}

function handle(req: Recorded, res: http.ServerResponse): void {
  const key = req.headers["idempotency-key"];
  const known = typeof key === "string" ? store.get(key) : undefined;
  if (known) replayed.push(req);
  const stored = known ?? answer(req);
  if (typeof key === "string") store.set(key, stored);
  const page = new URL(req.url, "http://backend").searchParams.get("page");
  if (lose.page !== undefined && page === lose.page) {
    // Committed and stored, then the answer never arrives.
    lose.page = undefined;
    res.socket?.destroy();
    return;
  }
  sendJson(res, stored.status, stored.body, stored.headers);
}

describe("a paginated write: one Idempotency-Key per page", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-paged-writes-"));
  let backend: TestServer;
  let agent: Connected;
  before(async () => {
    backend = await startServer(handle);
    writePlugin(path.join(dir, "agent-tools-plugin-paged"), {
      name: "paged",
      prefix: "paged",
      adapter: {
        kind: "rest",
        baseUrl: `${backend.url}/v1`,
        tools: [
          { name: "search", method: "POST", path: "/search", body: ["query"], paginate: { style: "page", param: "page", perPageParam: "per_page", perPage: PER_PAGE } },
          { name: "scan", method: "POST", path: "/scan", body: ["query"], paginate: { style: "link", maxPages: 6 } },
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

  const keysSince = (from: number) => backend.requests.slice(from).map((r) => r.headers["idempotency-key"] as string);
  const call = (tool: string, query: string) => callJson(agent.client, "agent_tools_paged_call", { toolName: tool, arguments: { query }, confirm: true });

  for (const tool of ["search", "scan"]) {
    it(`${tool}: every page is read once, each with a key of its own`, async () => {
      const from = backend.requests.length;
      const { payload, isError } = await call(tool, `all of ${tool}`);
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { items: ITEMS, pages: 3, complete: true }, "one key for all pages would read the first page 3 (or 6) times");
      const keys = keysSince(from);
      assert.equal(keys.length, 3);
      for (const key of keys) assert.match(key, UUID);
      assert.equal(new Set(keys).size, 3, `each page its own key: ${keys.join(", ")}`);
      assert.equal(replayed.length, 0, "nothing was answered from the store");
    });
  }

  it("a retry of the call whose last page's answer was lost sends each page with the key it had, and reads every item once", async () => {
    const from = backend.requests.length;
    lose.page = "3";
    const lost = await call("search", "retried");
    assert.equal(lost.isError, true, JSON.stringify(lost.payload));
    const first = keysSince(from);
    assert.equal(first.length, 3, "pages 1 to 3 were sent; the third's answer was lost");
    const again = backend.requests.length;
    const retried = await call("search", "retried");
    assert.equal(retried.isError, false, JSON.stringify(retried.payload));
    assert.deepEqual(retried.payload.result, { items: ITEMS, pages: 3, complete: true });
    assert.deepEqual(keysSince(again), first, "the same call walks the pages again with the same keys");
    assert.deepEqual(
      replayed.map((r) => new URL(r.url, "http://backend").searchParams.get("page")),
      ["1", "2", "3"],
      "the backend answered each page from its store, the lost third too",
    );
  });

  it("the same call once answered is a new write: new keys for every page", async () => {
    const from = backend.requests.length;
    const first = await call("scan", "twice");
    assert.equal(first.isError, false, JSON.stringify(first.payload));
    const firstKeys = keysSince(from);
    const next = backend.requests.length;
    const second = await call("scan", "twice");
    assert.deepEqual(second.payload.result, { items: ITEMS, pages: 3, complete: true }, JSON.stringify(second.payload));
    const secondKeys = keysSince(next);
    assert.equal(secondKeys.length, 3);
    for (const key of secondKeys) assert.ok(!firstKeys.includes(key), `${key} was used by the answered call`);
  });
});
