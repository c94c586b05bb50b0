import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { classifyInboundRequest, isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse, isJSONRPCResultResponse } from "@modelcontextprotocol/server";
import { spliceSdkGuards } from "../scripts/bundle.js";
import { isErrorResponse, isNotification, isPlainEnvelope, isRequest, isResponse, isResultResponse } from "../src/sdk-jsonrpc-guards.js";
import { ROOT } from "./helpers.js";

/**
 * src/sdk-jsonrpc-guards.ts against the SDK it stands in for (the package as published, not the
 * bundle): wherever a hand-written guard gives an answer, it must be the answer of the SDK's own
 * zod guard, over a corpus of valid messages, each member broken in every way in the value pool,
 * pairs of members broken together, and shapes zod treats specially (arrays, class instances,
 * null prototypes, symbol keys, `__proto__` from JSON, unsafe integers, undefined members).
 * The envelope check is compared with the SDK's classifier, which runs the same envelope schema.
 */

const PV = "io.modelcontextprotocol/protocolVersion";
const CI = "io.modelcontextprotocol/clientInfo";
const CC = "io.modelcontextprotocol/clientCapabilities";
const LL = "io.modelcontextprotocol/logLevel";
const RT = "io.modelcontextprotocol/related-task";

class Box {
  constructor(readonly jsonrpc = "2.0") {}
}

const pool: unknown[] = [
  undefined,
  null,
  true,
  0,
  1,
  -1,
  1.5,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  -(2 ** 53) - 2,
  "",
  "2.0",
  "1.0",
  "x",
  [],
  [1],
  {},
  Object.create(null) as object,
  new Box(),
  new Date(0),
  { _meta: undefined },
  { _meta: {} },
  { _meta: null },
  { _meta: [] },
  { _meta: "m" },
  { _meta: { progressToken: "t" } },
  { _meta: { progressToken: 7 } },
  { _meta: { progressToken: 7.5 } },
  { _meta: { progressToken: null } },
  { _meta: { progressToken: 2 ** 60 } },
  { _meta: { [RT]: { taskId: "a" } } },
  { _meta: { [RT]: {} } },
  { _meta: { other: 1, nested: { deep: [1, 2] } } },
  { _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } } },
  { _meta: { "io.modelcontextprotocol/serverInfo": "not an implementation" } },
  { _meta: new Box() },
  { code: 1, message: "m" },
  { code: 1.5, message: "m" },
  { code: "1", message: "m" },
  { code: 1 },
  { message: "m" },
  { code: 1, message: "m", data: { any: true } },
  { code: -32601, message: "m", extra: 1 },
  { code: 2 ** 60, message: "m" },
  { code: Number.NaN, message: "m" },
  { content: [], isError: false },
  { name: "tool", arguments: { a: 1 } },
];

const request = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {}, _meta: { progressToken: 3 } } };
const bases: Record<string, unknown>[] = [
  request,
  { jsonrpc: "2.0", id: "s-1", method: "tools/list" },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "x" }], _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } } } },
  { jsonrpc: "2.0", id: "r", result: {} },
  { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad", data: { why: 1 } } },
  { jsonrpc: "2.0", error: { code: -32700, message: "parse" } },
];
const members = ["jsonrpc", "id", "method", "params", "result", "error", "extra"];

function* corpus(): Generator<unknown> {
  yield* pool;
  for (const base of bases) {
    yield base;
    for (const key of members) {
      const { [key]: _dropped, ...without } = base;
      yield without;
      for (const value of pool) {
        yield { ...base, [key]: value };
        // Pairs: this member broken together with each other one set to a few telling values.
        for (const other of members) if (other !== key) for (const second of [undefined, 1.5, {}]) yield { ...base, [key]: value, [other]: second };
      }
    }
  }
  // Shapes only JSON or odd construction produce.
  yield JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"x":1}}');
  yield JSON.parse('{"jsonrpc":"2.0","id":1,"result":{},"__proto__":null}');
  yield Object.assign(Object.create(null) as object, request);
  yield { ...request, [Symbol("s")]: 1 };
  yield Object.assign(new Box(), { id: 1, method: "m" });
  yield { ...request, params: Object.assign(Object.create(null) as object, { _meta: {} }) };
  yield Object.defineProperty({ ...request }, "hidden", { value: 1, enumerable: false });
  yield [request];
}

const guards = [
  ["isJSONRPCRequest", isRequest, isJSONRPCRequest],
  ["isJSONRPCNotification", isNotification, isJSONRPCNotification],
  ["isJSONRPCResultResponse", isResultResponse, isJSONRPCResultResponse],
  ["isJSONRPCErrorResponse", isErrorResponse, isJSONRPCErrorResponse],
  ["isJSONRPCResponse", isResponse, isJSONRPCResponse],
] as const;

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (v === undefined ? "<undefined>" : typeof v === "number" && !Number.isFinite(v) ? String(v) : v)) ?? String(value);
  } catch {
    return String(value);
  }
};

describe("sdk-jsonrpc-guards: the hand-written answers equal the SDK's zod guards", () => {
  for (const [name, fast, sdk] of guards) {
    it(`${name}: every answer it gives is the SDK's, and it answers the plain shapes itself`, () => {
      let decided = 0;
      let total = 0;
      for (const value of corpus()) {
        total += 1;
        const verdict = fast(value);
        if (verdict === undefined) continue;
        decided += 1;
        assert.equal(verdict, sdk(value), `${name}(${show(value)})`);
      }
      // Most of the corpus is decided here (what is left goes to zod as before).
      assert.ok(decided > total * 0.6, `${name} decided ${decided} of ${total}`);
    });
  }

  it("the messages of a call are decided without zod, both ways", () => {
    const result = bases[4];
    const error = bases[6];
    const notification = bases[2];
    for (const [name, fast] of guards) for (const message of [request, result, error, notification]) assert.notEqual(fast(message), undefined, `${name} decides ${show(message)}`);
  });
});

describe("sdk-jsonrpc-guards: the plain envelope check never accepts what the SDK refuses", () => {
  const envelope: Record<string, unknown> = { [PV]: "2026-07-28", [CI]: { name: "c", version: "1" }, [CC]: {} };
  const variants: Record<string, unknown>[] = [envelope, { [PV]: "2026-07-28", [CC]: {} }];
  const values: unknown[] = [...pool, { name: "c", version: "1", title: "T" }, { name: "c", version: "1", icons: [] }, { name: "c", version: 1 }, { name: "c" }, { name: "c", version: "1", icons: "x" }, { name: "c", version: "1", title: 3 }, { elicitation: {} }, { sampling: {} }, { roots: { listChanged: true } }, { sampling: 1 }, { elicitation: "x" }, { roots: [] }, { experimental: 1 }, { extensions: "x" }, { somethingElse: 1 }, { sampling: undefined }, "debug", "loud"];
  for (const key of [PV, CI, CC, LL, "progressToken", "foreign"]) {
    for (const value of values) {
      variants.push({ ...envelope, [key]: value });
      const { [key]: _dropped, ...without } = envelope;
      variants.push(without);
    }
  }

  /** The SDK's verdict: its classifier answers `modern` only for a claim whose envelope validates. */
  const sdkAccepts = (meta: Record<string, unknown>): boolean => {
    const outcome = classifyInboundRequest({ httpMethod: "POST", body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } } });
    return outcome.kind === "modern";
  };

  it("each envelope it calls plain is one the SDK accepts; what the SDK client sends is plain", () => {
    let plain = 0;
    for (const meta of variants) {
      if (!isPlainEnvelope(meta)) continue;
      plain += 1;
      assert.ok(sdkAccepts(meta), `plain but refused by the SDK: ${show(meta)}`);
    }
    assert.ok(plain >= 10, `${plain} plain envelopes in the corpus`);
    assert.ok(isPlainEnvelope(envelope));
    assert.ok(isPlainEnvelope({ ...envelope, progressToken: "p" }));
  });
});

describe("scripts/bundle.ts: the splice into the SDK", () => {
  const sdkModule = (pkg: string): string => {
    const dist = path.join(ROOT, "node_modules", "@modelcontextprotocol", pkg, "dist");
    const file = readdirSync(dist).find((name) => /^src-.+\.mjs$/.test(name) && readFileSync(path.join(dist, name), "utf8").includes("const isJSONRPCRequest = "));
    assert.ok(file, `the ${pkg} SDK has a module defining the guards`);
    return path.join(dist, file);
  };

  for (const pkg of ["server", "client"]) {
    it(`splices every guard and both envelope checks of the ${pkg} SDK`, () => {
      const file = sdkModule(pkg);
      const out = spliceSdkGuards(readFileSync(file, "utf8"), file, "/guards.ts");
      assert.match(out, /^import \* as __agentToolsFastGuards from "\/guards\.ts";/);
      for (const fast of ["isRequest", "isNotification", "isResultResponse", "isErrorResponse", "isResponse", "isPlainEnvelope"]) assert.ok(out.includes(`__agentToolsFastGuards.${fast}(`), `${fast} is spliced`);
    });
  }

  it("fails loudly, naming the piece, when the SDK no longer has one of them", () => {
    const file = sdkModule("server");
    const text = readFileSync(file, "utf8").replace("const isJSONRPCNotification = (value) => JSONRPCNotificationSchema.safeParse(value).success;", "const isJSONRPCNotification = (value) => check(value);");
    assert.throws(() => spliceSdkGuards(text, file, "/guards.ts"), /the MCP SDK changed shape: `const isJSONRPCNotification = .*` is not in/);
    const twice = readFileSync(file, "utf8") + "\nconst isJSONRPCRequest = (value) => JSONRPCRequestSchema.safeParse(value).success;";
    assert.throws(() => spliceSdkGuards(twice, file, "/guards.ts"), /more than once/);
  });
});
