import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createOpenApiAdapter } from "../src/adapters/openapi/index.js";
import type { Adapter, ToolDescriptor } from "../src/adapters/types.js";
import { checkAgainstSchema } from "../src/json-schema.js";
import { silent, type TestServer } from "./fixtures/rest/http-server.js";
import { PETSTORE_SPEC, startPetstore } from "./fixtures/rest/petstore-server.js";

/** The OpenAPI kind over the public Swagger Petstore 3.0 document and a local implementation of it. */

let server: TestServer;
let adapter: Adapter;
let tools: ToolDescriptor[];
const env = { PETSTORE_KEY: "special-key" };
const FIXTURE_DIR = path.dirname(PETSTORE_SPEC);

before(async () => {
  server = await startPetstore();
  adapter = await createOpenApiAdapter(
    { kind: "openapi", spec: "./petstore.openapi.json", baseUrl: `${server.url}/api/v3`, auth: { type: "header", name: "api_key", value: "${PETSTORE_KEY}" } },
    { pluginDir: FIXTURE_DIR, manifest: {}, env, log: silent },
  );
  tools = (await adapter.listTools()).tools;
});
after(() => server.close());

function tool(name: string): ToolDescriptor {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `tool ${name}`);
  return found;
}

type Props = Record<string, Record<string, unknown>>;

describe("tools from the Petstore document", () => {
  it("one tool per operation, named by operationId, described by summary/description", () => {
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "addPet", "createUser", "createUsersWithListInput", "deleteOrder", "deletePet", "deleteUser", "findPetsByStatus", "findPetsByTags",
      "getInventory", "getOrderById", "getPetById", "getUserByName", "loginUser", "logoutUser", "placeOrder", "updatePet", "updatePetWithForm",
      "updateUser", "uploadFile",
    ]);
    assert.equal(tool("getPetById").description, "Find pet by ID. Returns a single pet.");
    assert.equal(tool("addPet").description, "Add a new pet to the store.");
  });

  it("read-only hints: GET operations only", () => {
    assert.equal(tool("getPetById").annotations?.readOnlyHint, true);
    assert.equal(tool("findPetsByStatus").annotations?.readOnlyHint, true);
    assert.equal(tool("addPet").annotations?.readOnlyHint, false);
    assert.equal(tool("deletePet").annotations?.readOnlyHint, false);
    assert.equal(tool("deletePet").annotations?.destructiveHint, true);
  });

  it("body properties at top level with $refs resolved (Pet → Category, Tag)", () => {
    const schema = tool("addPet").inputSchema as { properties: Props; required: string[]; additionalProperties: boolean };
    assert.deepEqual(Object.keys(schema.properties), ["id", "name", "category", "photoUrls", "tags", "status"]);
    assert.deepEqual(schema.required, ["name", "photoUrls"]);
    assert.deepEqual(schema.properties.category, { type: "object", properties: { id: { type: "integer", format: "int64" }, name: { type: "string" } } });
    assert.deepEqual((schema.properties.tags as { items: unknown }).items, { type: "object", properties: { id: { type: "integer", format: "int64" }, name: { type: "string" } } });
    assert.deepEqual(schema.properties.status?.enum, ["available", "pending", "sold"]);
    assert.ok(!JSON.stringify(tools).includes("$ref"), "no $ref left in any tool schema");
    assert.ok(!JSON.stringify(tools).includes('"xml"'), "documentation-only keywords dropped");
  });

  it("path, query and header parameters merged into one schema", () => {
    const byId = tool("getPetById").inputSchema as { properties: Props; required: string[] };
    assert.deepEqual(byId.properties.petId, { type: "integer", format: "int64", description: "ID of pet to return" });
    assert.deepEqual(byId.required, ["petId"]);
    // deletePet's `api_key` header parameter is supplied by the configured auth, so it is not an argument.
    const del = tool("deletePet").inputSchema as { properties: Props; required: string[] };
    assert.deepEqual(Object.keys(del.properties), ["petId"]);
    assert.deepEqual(del.required, ["petId"]);
    const form = tool("updatePetWithForm").inputSchema as { properties: Props };
    assert.deepEqual(Object.keys(form.properties), ["petId", "name", "status"]);
    const byTags = tool("findPetsByTags").inputSchema as { properties: Props; required: string[] };
    assert.deepEqual(byTags.properties.tags?.type, "array");
    assert.deepEqual(byTags.required, ["tags"]);
  });

  it("a body that clashes with a parameter, or is not an object, goes under `body`", () => {
    const update = tool("updateUser").inputSchema as { properties: Props; required: string[] };
    assert.deepEqual(Object.keys(update.properties), ["username", "body"]);
    assert.ok((update.properties.body?.properties as Props).username, "the User schema is kept whole");
    const list = tool("createUsersWithListInput").inputSchema as { properties: Props };
    assert.equal(list.properties.body?.type, "array");
    assert.equal(((list.properties.body?.items as { properties: Props }).properties.email)?.type, "string");
    const upload = tool("uploadFile").inputSchema as { properties: Props };
    assert.deepEqual(upload.properties.body, { type: "string", format: "binary" });
  });

  it("every schema compiles and validates arguments", () => {
    for (const t of tools) assert.notEqual(checkAgainstSchema(t.inputSchema, {}).ok, "skipped", `${t.name} schema compiles`);
    const addPet = tool("addPet").inputSchema;
    assert.equal(checkAgainstSchema(addPet, { name: "rex", photoUrls: [] }).ok, true);
    const bad = checkAgainstSchema(addPet, { name: 1, status: "lost" });
    assert.equal(bad.ok, false);
    assert.equal(checkAgainstSchema(tool("getPetById").inputSchema, { petId: "x" }).ok, false);
  });
});

describe("calls against the local Petstore", () => {
  it("addPet posts the JSON body; getPetById reads it back", async () => {
    const created = (await adapter.call("addPet", { id: 10, name: "rex", photoUrls: ["a.png"], category: { id: 1, name: "Dogs" }, status: "pending" })) as { status: number; data: Record<string, unknown> };
    assert.equal(created.status, 200);
    assert.equal(created.data.name, "rex");
    const recorded = server.requests.at(-1);
    assert.equal(recorded?.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(recorded?.body ?? "{}"), { id: 10, name: "rex", photoUrls: ["a.png"], category: { id: 1, name: "Dogs" }, status: "pending" });
    const read = (await adapter.call("getPetById", { petId: 10 })) as { data: Record<string, unknown> };
    assert.equal(read.data.name, "rex");
  });

  it("query parameters, including an exploded array", async () => {
    const sold = (await adapter.call("findPetsByStatus", { status: "sold" })) as { data: { name: string }[] };
    assert.deepEqual(sold.data.map((p) => p.name), ["kitty"]);
    const tagged = (await adapter.call("findPetsByTags", { tags: ["tag1", "tag2"] })) as { data: { name: string }[] };
    assert.equal(server.requests.at(-1)?.url, "/api/v3/pet/findByTags?tags=tag1&tags=tag2");
    assert.deepEqual(tagged.data.map((p) => p.name).sort(), ["doggie", "kitty"]);
    const updated = (await adapter.call("updatePetWithForm", { petId: 1, name: "doggo", status: "sold" })) as { data: { name: string } };
    assert.equal(updated.data.name, "doggo");
  });

  it("auth header from the manifest; a header parameter from the arguments; secrets redacted", async () => {
    const inventory = (await adapter.call("getInventory", {})) as { data: Record<string, number> };
    assert.equal(typeof inventory.data.sold, "number");
    assert.equal(server.requests.at(-1)?.headers.api_key, "special-key");
    const deleted = (await adapter.call("deletePet", { petId: 2 })) as { status: number; data: string };
    assert.equal(deleted.status, 200);
    assert.equal(deleted.data, "Pet deleted (api_key header: [redacted])");
    const gone = adapter.call("getPetById", { petId: 2 });
    await assert.rejects(gone, (e: Error & { code?: string }) => e.code === "UPSTREAM_ERROR" && /GET \/api\/v3\/pet\/2 answered HTTP 404: .*Pet not found/.test(e.message));
  });

  it("a body under `body` is sent whole; a string body with its media type", async () => {
    await adapter.call("createUser", { username: "ann", email: "a@example.com" });
    await adapter.call("updateUser", { username: "ann", body: { username: "ann", phone: "123" } });
    assert.deepEqual(JSON.parse(server.requests.at(-1)?.body ?? "{}"), { username: "ann", phone: "123" });
    const user = (await adapter.call("getUserByName", { username: "ann" })) as { data: Record<string, unknown> };
    assert.deepEqual(user.data, { username: "ann", email: "a@example.com", phone: "123" });
    const upload = (await adapter.call("uploadFile", { petId: 1, additionalMetadata: "m", body: "raw-bytes" })) as { data: { type: string; message: string } };
    assert.equal(upload.data.type, "application/octet-stream");
    assert.match(upload.data.message, /additionalMetadata: m\nFile uploaded, 9 bytes/);
  });
});

describe("spec sources and options", () => {
  it("loads the spec from a URL and resolves its relative server against it; include and readonly", async () => {
    const remote = await createOpenApiAdapter(
      { kind: "openapi", spec: `${server.url}/api/v3/openapi.json`, include: ["getPetById", "findPetsByStatus", "placeOrder", "deletePet"], readonly: ["placeOrder"] },
      { pluginDir: FIXTURE_DIR, manifest: {}, env: {}, log: silent },
    );
    const listed = (await remote.listTools()).tools;
    assert.deepEqual(listed.map((t) => t.name), ["findPetsByStatus", "getPetById", "deletePet", "placeOrder"]);
    assert.equal(listed.find((t) => t.name === "placeOrder")?.annotations?.readOnlyHint, true);
    const pet = (await remote.call("getPetById", { petId: 1 })) as { data: { id: number } };
    assert.equal(pet.data.id, 1);
    // Without auth, deletePet's header parameter is an argument and is sent as a header.
    const del = listed.find((t) => t.name === "deletePet")?.inputSchema as { properties: Props; required: string[] };
    assert.deepEqual(Object.keys(del.properties).sort(), ["api_key", "petId"]);
    assert.deepEqual(del.required, ["petId"]);
    const deleted = (await remote.call("deletePet", { petId: 10, api_key: "other-key" })) as { data: string };
    assert.equal(deleted.data, "Pet deleted (api_key header: other-key)");
  });

  it("defaults the base URL to the spec's first absolute server", async () => {
    const a = await createOpenApiAdapter({ kind: "openapi", spec: "./petstore.openapi.json", include: ["getPetById"] }, { pluginDir: FIXTURE_DIR, manifest: {}, env: {}, log: silent });
    assert.equal((await a.listTools()).tools.length, 1);
    // Not called: https://petstore3.swagger.io/api/v3 is the public demo; the test stays offline.
  });

  it("reports unknown include names, missing files and non-OpenAPI documents", async () => {
    const opts = { pluginDir: FIXTURE_DIR, manifest: {}, env: {}, log: silent };
    await assert.rejects(async () => createOpenApiAdapter({ kind: "openapi", spec: "./petstore.openapi.json", include: ["nope"] }, opts), /include names operations the spec does not have: nope/);
    await assert.rejects(async () => createOpenApiAdapter({ kind: "openapi", spec: "./missing.json" }, opts), /spec '\.\/missing\.json' could not be read/);
    await assert.rejects(async () => createOpenApiAdapter({ kind: "openapi" }, opts), /spec is required; it must be a file path or URL/);
  });

  describe("a document exercising edge cases", () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "openapi-"));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it("sanitises names, falls back to method_path, keeps circular refs serialisable, maps nullable, skips unsafe paths", async () => {
      const doc = {
        openapi: "3.1.0",
        info: { title: "t", version: "1" },
        paths: {
          "/nodes/{id}": {
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            get: { operationId: "nodes.get by id!", parameters: [{ name: "id", in: "query", schema: { type: "string" } }], responses: {} },
            post: { requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } }, responses: {} },
          },
          "/../escape": { get: { operationId: "escape", responses: {} } },
          "/yaml": { get: { operationId: "other", responses: {} } },
        },
        components: {
          schemas: {
            Node: { type: "object", required: ["label"], properties: { label: { type: "string", nullable: true }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } },
          },
        },
      };
      await writeFile(path.join(dir, "spec.json"), JSON.stringify(doc));
      const warnings: string[] = [];
      const log = { ...silent, warn: (m: string) => warnings.push(m) };
      const a = await createOpenApiAdapter({ kind: "openapi", spec: "spec.json", baseUrl: `${server.url}/api/v3` }, { pluginDir: dir, manifest: {}, env: {}, log });
      const listed = (await a.listTools()).tools;
      assert.deepEqual(listed.map((t) => t.name), ["nodes_get_by_id", "post_nodes_id", "other"]);
      assert.ok(warnings.some((w) => /\(GET \/\.\.\/escape\) skipped/.test(w)), warnings.join("\n"));
      const get = listed[0]?.inputSchema as { properties: Props; required: string[] };
      assert.deepEqual(Object.keys(get.properties), ["id", "query_id"], "a name used twice is prefixed with its location");
      const post = listed[1]?.inputSchema as { properties: Props; required: string[] };
      assert.deepEqual(post.required, ["id", "label"]);
      assert.deepEqual(post.properties.label?.type, ["string", "null"]);
      assert.doesNotThrow(() => JSON.stringify(listed));
      assert.notEqual(checkAgainstSchema(listed[1]!.inputSchema, {}).ok, "skipped");

      await a.call("nodes_get_by_id", { id: "a b", query_id: "q" }).catch(() => undefined);
      assert.equal(server.requests.at(-1)?.url, "/api/v3/nodes/a%20b?id=q");
    });

    it("reads YAML and refuses Swagger 2.0", async () => {
      await writeFile(path.join(dir, "spec.yaml"), "openapi: 3.0.3\ninfo: {title: y, version: '1'}\nservers:\n  - url: http://127.0.0.1:9/{v}\n    variables: {v: {default: v2}}\npaths:\n  /ping:\n    get: {operationId: ping, summary: Ping., responses: {}}\n");
      const a = await createOpenApiAdapter({ kind: "openapi", spec: "spec.yaml" }, { pluginDir: dir, manifest: {}, env: {}, log: silent });
      assert.deepEqual((await a.listTools()).tools.map((t) => [t.name, t.description]), [["ping", "Ping."]]);
      await assert.rejects(a.call("ping", {}), /GET \/v2\/ping failed/);
      await writeFile(path.join(dir, "swagger.json"), JSON.stringify({ swagger: "2.0", info: {}, paths: {} }));
      await assert.rejects(async () => createOpenApiAdapter({ kind: "openapi", spec: "swagger.json" }, { pluginDir: dir, manifest: {}, env: {}, log: silent }), /Swagger 2\.0; only OpenAPI 3/);
    });
  });
});
