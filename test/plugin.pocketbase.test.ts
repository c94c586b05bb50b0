import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import path from "node:path";
import { callJson, connect, ROOT, type Connected, type Payload } from "./helpers.js";
import { startPocketBase, type PocketBaseStandIn } from "./fixtures/pocketbase/server.js";

/**
 * The bundled pocketbase plugin end to end: the SDK client over stdio → the facade → the rest
 * adapter with its login auth → the PocketBase stand-in (test/fixtures/pocketbase), which speaks
 * PocketBase's wire format: superuser login, list envelopes, error envelopes, guest answers for
 * a token it no longer accepts.
 */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-pocketbase");
const EMAIL = "root@example.com";
const PASSWORD = "pb-Super-Secret-9137";

const call = (c: Connected, toolName: string, args: Record<string, unknown>, confirm?: boolean) =>
  callJson(c.client, "agent_tools_pocketbase_call", { toolName, arguments: args, ...(confirm === undefined ? {} : { confirm }) });
// The skill creates a record, so it runs under the same confirm gate as create_record.
const skill = (c: Connected, args: Record<string, unknown>) =>
  callJson(c.client, "agent_tools_pocketbase_run_skill", { skill: "insert-and-verify-record", arguments: args, confirm: true });
const dataOf = <T = Record<string, unknown>>(p: Payload) => (p.result as { data: T }).data;

interface ListPage {
  page: number;
  perPage: number;
  totalItems: number;
  totalPages: number;
  items: Record<string, unknown>[];
}

describe("pocketbase plugin against the PocketBase stand-in", () => {
  let pb: PocketBaseStandIn;
  let agent: Connected;
  let tokensSeen: string[] = [];

  before(async () => {
    pb = await startPocketBase({ email: EMAIL, password: PASSWORD });
    agent = await connect(PLUGIN, { POCKETBASE_URL: pb.url, POCKETBASE_EMAIL: EMAIL, POCKETBASE_PASSWORD: PASSWORD, AGENT_TOOLS_LOG: "debug" });
  });
  after(async () => {
    await agent?.close();
    await pb?.close();
  });

  it("N concurrent first calls cause one login, whose token then serves every call", async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(agent, "list_records", { collection: "posts", perPage: 2 })));
    for (const { isError, payload } of answers) assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(pb.loginAttempts(), 1);
    const login = pb.requests.find((r) => r.url.endsWith("/auth-with-password"));
    assert.equal(login?.method, "POST");
    assert.equal(login?.url, "/api/collections/_superusers/auth-with-password");
    tokensSeen = pb.requests.filter((r) => r.url.includes("/records")).map((r) => r.authorization ?? "");
    assert.equal(new Set(tokensSeen).size, 1, "one token, sent as 'Authorization: TOKEN'");
    assert.doesNotMatch(tokensSeen[0]!, /^Bearer /);
  });

  it("list_collections answers PocketBase's list envelope", async () => {
    const { payload, isError } = await call(agent, "list_collections", {});
    assert.equal(isError, false);
    const page = dataOf<ListPage>(payload);
    assert.deepEqual(page.items.map((c) => c.name), ["_superusers", "posts", "tags"]);
    assert.equal(page.perPage, 100, "the plugin's default perPage");
    const custom = dataOf<ListPage>((await call(agent, "list_collections", { filter: "system = false" })).payload);
    assert.deepEqual(custom.items.map((c) => c.name), ["posts", "tags"]);
  });

  it("list_records: filter, sort, pages, totals; perPage defaults to 100 and above 500 is refused", async () => {
    const first = dataOf<ListPage>((await call(agent, "list_records", { collection: "posts", sort: "-views", perPage: 3 })).payload);
    assert.deepEqual({ page: first.page, perPage: first.perPage, totalItems: first.totalItems, totalPages: first.totalPages }, { page: 1, perPage: 3, totalItems: 7, totalPages: 3 });
    assert.deepEqual(first.items.map((r) => r.views), [70, 60, 50]);
    const third = dataOf<ListPage>((await call(agent, "list_records", { collection: "posts", sort: "-views", perPage: 3, page: 3 })).payload);
    assert.deepEqual(third.items.map((r) => r.views), [10]);

    const filtered = dataOf<ListPage>((await call(agent, "list_records", { collection: "posts", filter: "published = true && views > 15", sort: "title" })).payload);
    assert.deepEqual(filtered.items.map((r) => r.title), ["Post 2", "Post 3", "Post 4"]);
    assert.equal(filtered.perPage, 100);
    assert.match(pb.requests.at(-1)!.url, /[?&]perPage=100(&|$)/, "the default is sent, not PocketBase's own 30");

    const tooMany = await call(agent, "list_records", { collection: "posts", perPage: 1000 });
    assert.equal(tooMany.isError, true);
    assert.equal(tooMany.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(tooMany.payload.error?.message ?? "", /perPage.*500/);

    const badFilter = await call(agent, "list_records", { collection: "posts", filter: "nosuchfield = 1" });
    assert.equal(badFilter.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(badFilter.payload.error?.message ?? "", /HTTP 400: .*Something went wrong while processing your request/);
    const noCollection = await call(agent, "list_records", { collection: "nope" });
    assert.match(noCollection.payload.error?.message ?? "", /HTTP 404: .*Missing collection context/);
  });

  it("create, get, update, delete records; the mutating ones need confirm", async () => {
    const refused = await call(agent, "create_record", { collection: "tags", data: { name: "draft" } });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    assert.equal(dataOf<ListPage>((await call(agent, "list_records", { collection: "tags", filter: "name = 'draft'" })).payload).totalItems, 0);

    const created = dataOf((await call(agent, "create_record", { collection: "tags", data: { name: "draft" } }, true)).payload);
    assert.match(String(created.id), /^[a-z0-9]{15}$/);
    assert.equal(created.collectionName, "tags");
    const got = dataOf((await call(agent, "get_record", { collection: "tags", id: created.id })).payload);
    assert.deepEqual(got, created);

    assert.equal((await call(agent, "update_record", { collection: "tags", id: created.id, data: { name: "drafts" } })).payload.error?.code, "CONFIRM_REQUIRED");
    const updated = dataOf((await call(agent, "update_record", { collection: "tags", id: created.id, data: { name: "drafts" } }, true)).payload);
    assert.equal(updated.name, "drafts");

    const invalid = await call(agent, "create_record", { collection: "posts", data: { body: "no title" } }, true);
    assert.equal(invalid.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(invalid.payload.error?.message ?? "", /HTTP 400: .*Failed to create record.*"title":\{"code":"validation_required"/);

    assert.equal((await call(agent, "delete_record", { collection: "tags", id: created.id })).payload.error?.code, "CONFIRM_REQUIRED");
    const deleted = await call(agent, "delete_record", { collection: "tags", id: created.id }, true);
    assert.deepEqual(deleted.payload.result, { status: 204, data: null });
    const gone = await call(agent, "get_record", { collection: "tags", id: created.id });
    assert.match(gone.payload.error?.message ?? "", /HTTP 404: .*The requested resource wasn't found/);
  });

  it("a token PocketBase stops accepting (answered as a guest: 401 or 403) leads to one re-login shared by concurrent calls", async () => {
    const before = pb.loginAttempts();
    pb.revokeTokens();
    const answers = await Promise.all([
      call(agent, "list_records", { collection: "posts", perPage: 1 }),
      call(agent, "list_records", { collection: "tags", perPage: 1 }),
      call(agent, "list_collections", {}),
      call(agent, "get_record", { collection: "posts", id: String(dataOf<ListPage>((await call(agent, "list_records", { collection: "posts", perPage: 1 })).payload).items[0]?.id) }),
    ]);
    for (const { isError, payload } of answers) assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(pb.loginAttempts() - before, 1, "the 403s and the 401 caused one login between them");
  });

  it("a failed login is not cached: the next call logs in afresh and works", async () => {
    pb.revokeTokens();
    pb.failLogins(1);
    const failed = await call(agent, "list_collections", { page: 1 });
    assert.equal(failed.isError, true);
    assert.match(failed.payload.error?.message ?? "", /login failed: POST \/api\/collections\/_superusers\/auth-with-password answered HTTP 500/);
    const attempts = pb.loginAttempts();
    const ok = await call(agent, "list_collections", { page: 1, perPage: 10 });
    assert.equal(ok.isError, false, JSON.stringify(ok.payload));
    assert.equal(pb.loginAttempts(), attempts + 1);
  });

  it("insert-and-verify-record: created, read back, every field matches", async () => {
    const { payload, isError } = await skill(agent, { collection: "posts", data: { title: "Launch notes", body: "v1 is out", views: 3, published: true } });
    assert.equal(isError, false, JSON.stringify(payload));
    const report = payload.result as { verified: boolean; id: string; checks: { match: boolean }[]; record: Record<string, unknown> };
    assert.equal(report.verified, true);
    assert.ok(report.checks.every((c) => c.match));
    assert.equal(report.record.title, "Launch notes");
  });

  it("insert-and-verify-record: PocketBase's casting and dropped fields are an error naming each field and the new id", async () => {
    const { payload, isError } = await skill(agent, { collection: "posts", data: { title: "Cast me", views: "12", colour: "red" } });
    assert.equal(isError, true);
    assert.match(payload.error?.message ?? "", /'posts' record [a-z0-9]{15} was created, but what was stored differs from what was sent: views \(sent "12", stored 12\); colour \(sent "red", not in what was read back\)/);
    const details = payload.error?.details as { stage: string; checks: { field: string; match: boolean }[] };
    assert.equal(details.stage, "compare");
    assert.deepEqual(details.checks.filter((c) => !c.match).map((c) => c.field), ["views", "colour"]);
  });

  it("insert-and-verify-record: a read-back answering 500 is reported with the new id", async () => {
    pb.failNext("GET", /^\/api\/collections\/posts\/records\/[a-z0-9]{15}$/, 500);
    const { payload, isError } = await skill(agent, { collection: "posts", data: { title: "Half done" } });
    assert.equal(isError, true);
    assert.match(payload.error?.message ?? "", /'posts' record [a-z0-9]{15} was created, but reading it back failed: .*HTTP 500/);
    const details = payload.error?.details as { stage: string; id: string };
    assert.equal(details.stage, "read-back");
    const exists = dataOf((await call(agent, "get_record", { collection: "posts", id: details.id })).payload);
    assert.equal(exists.title, "Half done");
  });

  it("never shows the password or a token: not in results, errors, or stderr", async () => {
    const everything = agent.stderr();
    assert.match(everything, /logging in again and retrying once/, "the debug log was on and saw the re-logins");
    assert.ok(!everything.includes(PASSWORD), "stderr holds the password");
    const issued = new Set(pb.requests.map((r) => r.authorization).filter((a): a is string => !!a));
    assert.ok(issued.size >= 2);
    for (const token of issued) assert.ok(!everything.includes(token), "stderr holds a token");
    const { payload } = await call(agent, "list_records", { collection: "posts", perPage: 500 });
    const text = JSON.stringify(payload);
    for (const token of issued) assert.ok(!text.includes(token));
    assert.ok(!text.includes(PASSWORD));
  });
});

describe("pocketbase plugin: configuration problems", () => {
  it("not configured: loads, help says what to set, a call answers NOT_CONFIGURED", async () => {
    const agent = await connect(PLUGIN, { POCKETBASE_URL: "", POCKETBASE_EMAIL: "", POCKETBASE_PASSWORD: "" });
    try {
      const { payload: help } = await callJson(agent.client, "agent_tools_help");
      assert.match(JSON.stringify(help), /not configured: set POCKETBASE_URL, POCKETBASE_EMAIL, POCKETBASE_PASSWORD/);
      const { payload, isError } = await call(agent, "list_collections", {});
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual((payload.error?.details as { missing: string[] }).missing, ["POCKETBASE_URL", "POCKETBASE_EMAIL", "POCKETBASE_PASSWORD"]);
    } finally {
      await agent.close();
    }
  });

  it("a wrong password is a clear login failure that shows neither password", async () => {
    const pb = await startPocketBase({ email: EMAIL, password: PASSWORD });
    const wrong = "not-the-password-4411";
    const agent = await connect(PLUGIN, { POCKETBASE_URL: pb.url, POCKETBASE_EMAIL: EMAIL, POCKETBASE_PASSWORD: wrong });
    try {
      const { payload, isError } = await call(agent, "list_collections", {});
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "UPSTREAM_ERROR");
      assert.match(payload.error?.message ?? "", /login failed: POST \/api\/collections\/_superusers\/auth-with-password answered HTTP 400: .*Failed to authenticate/);
      const again = await call(agent, "list_records", { collection: "posts" });
      assert.match(again.payload.error?.message ?? "", /login failed/);
      assert.equal(pb.loginAttempts(), 2, "the failure was not cached");
      const everything = JSON.stringify(payload) + JSON.stringify(again.payload) + agent.stderr();
      assert.ok(!everything.includes(wrong) && !everything.includes(PASSWORD));
    } finally {
      await agent.close();
      await pb.close();
    }
  });
});
