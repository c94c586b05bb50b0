import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import { RestSpecError } from "../src/adapters/rest/errors.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/** `bodyConstants`: body properties every call sends, which arguments cannot override. */

let server: TestServer;
before(async () => {
  server = await startServer((req, res) => sendJson(res, 200, { body: JSON.parse(req.body || "null") as unknown }));
});
after(async () => server.close());

const options = { pluginDir: ".", manifest: { prefix: "t" }, env: {}, log: silent };

describe("rest bodyConstants", () => {
  it("merges the constants over the arguments, for rest and field bodies", async () => {
    const adapter = await createRestAdapter(
      {
        kind: "rest",
        baseUrl: server.url,
        tools: [
          { name: "everything", method: "POST", path: "/a", body: "*", bodyConstants: { stream: false } },
          { name: "fields", method: "POST", path: "/b", body: ["prompt"], bodyConstants: { stream: false, mode: "x" } },
          { name: "none", method: "POST", path: "/c", body: [], bodyConstants: { stream: false } },
        ],
      },
      options,
    );
    const all = (await adapter.call("everything", { model: "m", stream: true })) as { data: { body: unknown } };
    assert.deepEqual(all.data.body, { model: "m", stream: false }, "the argument 'stream' cannot turn streaming on");
    const fields = (await adapter.call("fields", { prompt: "hi" })) as { data: { body: unknown } };
    assert.deepEqual(fields.data.body, { prompt: "hi", stream: false, mode: "x" });
    const none = (await adapter.call("none", {})) as { data: { body: unknown } };
    assert.deepEqual(none.data.body, { stream: false }, "sent even when no argument makes a body");
  });

  it("refuses bodyConstants that are not an object, or on a GET", async () => {
    await assert.rejects(
      async () => createRestAdapter({ kind: "rest", baseUrl: server.url, tools: [{ name: "x", method: "POST", path: "/a", bodyConstants: [1] }] }, options),
      (error: unknown) => error instanceof RestSpecError && /tools\[0\]\.bodyConstants/.test(error.message) && /object/.test(error.message),
    );
    await assert.rejects(
      async () => createRestAdapter({ kind: "rest", baseUrl: server.url, tools: [{ name: "x", method: "GET", path: "/a", bodyConstants: { a: 1 } }] }, options),
      /cannot be used with GET/,
    );
  });
});
