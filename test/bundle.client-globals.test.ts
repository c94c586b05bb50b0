import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { spliceLazyPkceCrypto, spliceLazySseStream } from "../scripts/bundle.js";
import { ROOT } from "./helpers.js";

/**
 * Two helpers the client SDK inlines read a Node global when their module is evaluated, which
 * makes Node load WebCrypto and web streams in every process that imports the MCP client
 * (scripts/bundle.ts lazyClientGlobals). The spliced modules, run as written here from the
 * installed packages: importing them reads neither global, and they still work. Each runs in a
 * process of its own, whose globals are watched before the import.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-client-globals-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const PKCE = path.join(ROOT, "node_modules", "pkce-challenge", "dist", "index.node.js");
const SSE = path.join(ROOT, "node_modules", "eventsource-parser", "dist");

/** Run `body` as an ES module after a getter on `global` that counts reads (`reads()`); answers its stdout. */
function watched(global: string, body: string): string {
  const watch = `const original = Object.getOwnPropertyDescriptor(globalThis, ${JSON.stringify(global)}); let count = 0;
Object.defineProperty(globalThis, ${JSON.stringify(global)}, { configurable: true, get() { count++; return original.get ? original.get.call(globalThis) : original.value; } });
const reads = () => count;`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", `${watch}\n${body}`], { encoding: "utf8" });
}

describe("bundle: the client SDK's helpers read their Node globals on first use", () => {
  it("pkce-challenge: no WebCrypto lookup at import; the challenge is still the verifier's S256", () => {
    const file = path.join(dir, "pkce.mjs");
    writeFileSync(file, spliceLazyPkceCrypto(readFileSync(PKCE, "utf8"), PKCE));
    const out = watched("crypto", `const { default: pkceChallenge } = await import(${JSON.stringify(pathToFileURL(file).href)});
const atImport = reads();
const { code_verifier, code_challenge } = await pkceChallenge();
const { createHash } = await import("node:crypto");
console.log(JSON.stringify({ atImport, after: reads(), length: code_verifier.length, s256: createHash("sha256").update(code_verifier).digest("base64url") === code_challenge }));`);
    const result = JSON.parse(out) as { atImport: number; after: number; length: number; s256: boolean };
    assert.equal(result.atImport, 0, "globalThis.crypto is not read when the module is evaluated");
    assert.ok(result.after > 0, "it is read when a challenge is made");
    assert.equal(result.length, 43);
    assert.ok(result.s256, "code_challenge = base64url(SHA-256(code_verifier))");
  });

  it("eventsource-parser: no TransformStream at import; the stream still parses events", () => {
    const sse = path.join(dir, "sse");
    mkdirSync(sse);
    copyFileSync(path.join(SSE, "index.js"), path.join(sse, "index.js"));
    writeFileSync(path.join(sse, "stream.js"), spliceLazySseStream(readFileSync(path.join(SSE, "stream.js"), "utf8"), path.join(SSE, "stream.js")));
    const out = watched("TransformStream", `const { EventSourceParserStream } = await import(${JSON.stringify(pathToFileURL(path.join(sse, "stream.js")).href)});
const atImport = reads();
const retries = [];
const source = new ReadableStream({ start(c) { c.enqueue("retry: 250\\nevent: note\\nid: 7\\ndata: one\\ndata: two\\n\\n"); c.enqueue("data: three\\n\\n"); c.close(); } });
const events = [];
for await (const event of source.pipeThrough(new EventSourceParserStream({ onRetry: (ms) => retries.push(ms) }))) events.push(event);
const second = new EventSourceParserStream();
console.log(JSON.stringify({ atImport, events, retries, isStream: second instanceof TransformStream }));`);
    const result = JSON.parse(out) as { atImport: number; events: unknown[]; retries: number[]; isStream: boolean };
    assert.equal(result.atImport, 0, "TransformStream is not read when the module is evaluated");
    assert.deepEqual(result.events, [{ id: "7", event: "note", data: "one\ntwo" }, { id: undefined, event: undefined, data: "three" }].map((e) => JSON.parse(JSON.stringify(e))));
    assert.deepEqual(result.retries, [250]);
    assert.ok(result.isStream, "each instance is a TransformStream");
  });

  it("fails loudly when a helper changed shape", () => {
    const pkce = readFileSync(PKCE, "utf8");
    assert.throws(() => spliceLazyPkceCrypto(pkce.replace("globalThis.crypto?.webcrypto ??", "globalThis.webcrypto ??"), PKCE), /pkce-challenge changed shape: .* is not in/);
    const stream = readFileSync(path.join(SSE, "stream.js"), "utf8");
    assert.throws(() => spliceLazySseStream(stream.replace("extends TransformStream", "extends Base"), "stream.js"), /eventsource-parser changed shape: `class EventSourceParserStream extends TransformStream \{` is not in/);
    assert.throws(() => spliceLazySseStream(`${stream}\nclass EventSourceParserStream extends TransformStream {}`, "stream.js"), /more than once/);
  });
});
