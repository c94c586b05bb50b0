import assert from "node:assert/strict";
import fc from "fast-check";
import { after, before, describe, it } from "node:test";
import { fuzzPayload, httpTarget, stdioTarget, type FuzzTarget } from "./fuzz-kit.js";

// Property-based traffic against the built server: wrong types, unknown methods, bad ids, huge
// strings, deep nesting, truncated JSON, binary noise. bench/fuzz.ts runs the same at 100,000.

const RUNS = Number(process.env.AGENT_TOOLS_FUZZ_RUNS ?? 150);

const call = (id: number, meta: unknown): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent_tools_help", arguments: {}, _meta: meta } });

/**
 * Hand-found cases the generator did not reach (it had no `_meta`), run before the generated ones.
 * Over stdio each got no answer at all (the SDK's transport only reports a line its schema
 * refuses), so its client waited forever; now each gets -32600 naming the member (`says`), over
 * HTTP too.
 */
const REGRESSIONS: { payload: string; says: RegExp; code?: number; stdioOnly?: true; httpServes?: true }[] = [
  { payload: call(41, "junk"), says: /'params\._meta' must be an object when present \(got string\)/ },
  { payload: call(42, [1]), says: /'params\._meta' must be an object when present \(got an array\)/ },
  { payload: call(43, { progressToken: { a: 1 }, "io.modelcontextprotocol/protocolVersion": 5 }), says: /'params\._meta\.progressToken' must be a string or an integer/ },
  // Found by seed 4242 once the generator had `_meta`: an integer past 2^53 passed the stdio reader's
  // quick check (jsonrpc-lines.ts), which the SDK then dropped without an answer; and a float.
  { payload: '{"jsonrpc":"2.0","id":"46","method":"ping","params":{"_meta":{"progressToken":-4.5e+100}}}', says: /'params\._meta\.progressToken' must be a string or an integer within ±\(2\^53 − 1\) \(got -4\.5e\+100\)/ },
  { payload: '{"jsonrpc":"2.0","id":47,"method":"tools/list","params":{"_meta":{"progressToken":1.7}}}', says: /'params\._meta\.progressToken' must be a string or an integer/ },
  { payload: JSON.stringify({ jsonrpc: "1.0", id: 44, method: "ping" }), says: /'jsonrpc' must be the string "2\.0" \(got "1\.0"\)/ },
  { payload: JSON.stringify({ jsonrpc: "2.0", id: "45", method: "server/discover", params: "x" }), says: /'params' must be an object when present \(got string\)/ },
  { payload: JSON.stringify([{ jsonrpc: "2.0", id: "b1", method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: "b2", method: "tools/list" }]), says: /a batch \(JSON array\) is not accepted over stdio: send each message on a line of its own/, httpServes: true },
  // A line over 10 MiB ended the stdio server (the reader threw, the transport closed, the process
  // exited); now it is skipped and answered, and the next line is served. (HTTP answers 413 at 4 MiB: http.defences.)
  {
    payload: JSON.stringify({ jsonrpc: "2.0", id: "huge", method: "tools/call", params: { name: "agent_tools_search", arguments: { query: "q".repeat(11 * 1024 * 1024) } } }),
    says: /the message is larger than 10485760 bytes, the most one stdio line may carry, and was skipped unread/,
    stdioOnly: true,
  },
  // The SDK answered these -32602 with a raw zod dump spread over lines (tools/list's cursor -32603); now one sentence naming the member (params-check.ts).
  ...[
    [50, { name: "agent_tools_help", arguments: "foo" }, /'params\.arguments': expected an object, received string/],
    [51, { name: "agent_tools_help", arguments: [1] }, /'params\.arguments': expected an object, received array/],
    [52, { name: "agent_tools_help", arguments: null }, /'params\.arguments': expected an object, received null/],
    [53, { arguments: {} }, /'params\.name': missing \(expected string\)/],
    [54, { name: 42, arguments: {} }, /'params\.name': expected string, received number/],
    [55, undefined, /'params': missing \(expected object\)/],
  ].map(([id, params, says]) => ({
    payload: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", ...(params === undefined ? {} : { params }) }),
    says: new RegExp(`^Invalid params for tools/call: ${(says as RegExp).source}; nothing was run\\. Send \\{"name": "<a tool name from tools/list>", "arguments": \\{…\\}\\}`),
    code: -32602,
  })),
  { payload: JSON.stringify({ jsonrpc: "2.0", id: 56, method: "tools/list", params: { cursor: 3 } }), says: /^Invalid params for tools\/list: 'params\.cursor': expected string, received number; nothing was run\. Send no params, or \{"cursor": "…"\}/, code: -32602 },
  // The SDK answered these -32603 Internal error with a raw zod dump (src/transports/params-check.ts).
  { payload: JSON.stringify({ jsonrpc: "2.0", id: 48, method: "initialize", params: { protocolVersion: 7, capabilities: "x" } }), says: /Invalid params for initialize: 'params\.protocolVersion': .*'params\.clientInfo': .*Send \{"protocolVersion"/, code: -32602 },
  { payload: JSON.stringify({ jsonrpc: "2.0", id: 49, method: "logging/setLevel", params: { level: "verbose" } }), says: /Invalid params for logging\/setLevel: 'params\.level': .*Send \{"level": "info"\}/, code: -32602 },
  // A request line cut short was skipped unanswered over stdio; its id is read from its start.
  {
    payload: '{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"agent_tools_help","argu',
    says: /Parse error: the line is not valid JSON \(.*\); nothing was run/,
    code: -32700,
    stdioOnly: true,
  },
];

/** A ping behind a UTF-8 byte order mark (Windows PowerShell 5 writes one): skipped over stdio, a parse error over HTTP; now served. */
const BOM_PING = `\uFEFF${JSON.stringify({ jsonrpc: "2.0", id: "bom", method: "ping" })}`;

for (const make of [stdioTarget, httpTarget]) {
  describe(`fuzzing over ${make === stdioTarget ? "stdio" : "HTTP"}`, () => {
    let target: FuzzTarget;
    before(async () => {
      target = await make();
    });
    after(async () => {
      await target.close();
    });

    it("answers every request of the hand-found cases, and the next ping", async () => {
      for (const { payload, says, code = -32600, stdioOnly, httpServes } of REGRESSIONS) {
        if (stdioOnly && make !== stdioTarget) continue;
        const outcome = await target.run(payload);
        assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.reason}\npayload: ${payload.slice(0, 300)}`);
        // Over HTTP a batch is served; over stdio each request of the line gets its own -32600. Over
        // HTTP the refusal is a 400 (the SDK's said "Parse error", naming nothing: refusedRequestIn).
        if (httpServes && make !== stdioTarget) continue;
        assert.ok(outcome.answers.length > 0, payload.slice(0, 300));
        for (const answer of outcome.answers as { error?: { code: number; message: string } }[]) {
          assert.equal(answer.error?.code, code, JSON.stringify(answer));
          assert.match(answer.error.message, says);
          assert.match(answer.error.message, /nothing was run/);
        }
      }
      const bom = await target.run(BOM_PING);
      assert.ok(bom.ok, bom.ok ? "" : bom.reason);
      assert.deepEqual(bom.answers, [{ result: {}, jsonrpc: "2.0", id: "bom" }]);
    });

    it(`survives ${RUNS} generated cases, answering each valid request and the next ping`, async () => {
      await fc.assert(
        fc.asyncProperty(fuzzPayload, async (payload) => {
          const outcome = await target.run(payload);
          assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.reason}\npayload: ${payload.slice(0, 300)}`);
        }),
        { numRuns: RUNS, seed: Number(process.env.AGENT_TOOLS_FUZZ_SEED ?? 20261202), endOnFailure: true },
      );
    });
  });
}
