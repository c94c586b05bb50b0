import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import type { Adapter } from "../src/adapters/types.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/** Two declarative tool fields: `defaults` (values for left-out arguments) and `bodyArg` (one argument is the JSON body). */

let server: TestServer;
const env = { BASE: "" };

before(async () => {
  server = await startServer((req, res) => sendJson(res, 200, { url: req.url, body: req.body ? (JSON.parse(req.body) as unknown) : null }));
  env.BASE = server.url;
});
after(() => server.close());

async function make(tools: unknown[]): Promise<Adapter> {
  return await createRestAdapter({ kind: "rest", baseUrl: "${BASE}", tools }, { pluginDir: "/tmp", manifest: {}, env, log: silent });
}

describe("rest tool defaults and bodyArg", () => {
  it("sends a default for an argument left out, and the caller's value (or null) when given", async () => {
    const a = await make([{ name: "list", path: "/items", query: ["page", "perPage"], defaults: { perPage: 100 } }]);
    assert.equal(((await a.call("list", {})) as { data: { url: string } }).data.url, "/items?perPage=100");
    assert.equal(((await a.call("list", { perPage: 5, page: 2 })) as { data: { url: string } }).data.url, "/items?page=2&perPage=5");
    assert.equal(((await a.call("list", { perPage: null })) as { data: { url: string } }).data.url, "/items", "an explicit null means none");
  });

  it("bodyArg: one object argument becomes the whole JSON body; the path parameters stay out of it", async () => {
    const a = await make([{ name: "create", method: "POST", path: "/c/{collection}/records", bodyArg: "data" }]);
    const result = (await a.call("create", { collection: "posts", data: { title: "x", collection: "a field of the record" } })) as { data: { url: string; body: unknown } };
    assert.equal(result.data.url, "/c/posts/records");
    assert.deepEqual(result.data.body, { title: "x", collection: "a field of the record" });
    assert.equal(server.requests.at(-1)?.headers["content-type"], "application/json");
  });

  it("names the field of a malformed defaults or bodyArg", async () => {
    await assert.rejects(make([{ name: "x", path: "/x", defaults: [1] }]), /tools\[0\]\.defaults must be an object/);
    await assert.rejects(make([{ name: "x", method: "POST", path: "/x", body: ["a"], bodyArg: "data" }]), /tools\[0\]\.bodyArg cannot be used together with 'body'/);
    await assert.rejects(make([{ name: "x", method: "POST", path: "/x", bodyArg: "" }]), /tools\[0\]\.bodyArg must be a non-empty string/);
  });
});
