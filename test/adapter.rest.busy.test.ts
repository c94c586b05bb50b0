import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import { MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from "../src/adapters/shared/upstream-status.js";
import type { Adapter } from "../src/adapters/types.js";
import { fromThrown, type ErrorPayload } from "../src/runtime/errors.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/**
 * A REST service that is rate limiting (429 with Retry-After) or down (5xx), against a real
 * server: the answer keeps the status and the wait in `details`, and its hint says to retry the
 * same call, not to change the arguments or the tool; the manifest's `errors` rules still win.
 */

let server: TestServer;
const env: NodeJS.ProcessEnv = { BASE: "" };
/** An HTTP date 90 s after the server answered: Retry-After's other form. */
let dateWait = "";

before(async () => {
  server = await startServer((req, res) => {
    switch (new URL(req.url, "http://x").pathname) {
      case "/429":
        return sendJson(res, 429, { message: "slow down" }, { "retry-after": "2" });
      case "/429-date":
        dateWait = new Date(Date.now() + 90_000).toUTCString();
        return sendJson(res, 429, { message: "slow down" }, { "retry-after": dateWait });
      case "/429-days":
        return sendJson(res, 429, { message: "quota gone" }, { "retry-after": "864000" });
      case "/429-bare":
        return sendJson(res, 429, { message: "slow down" });
      case "/503":
        return sendJson(res, 503, { message: "maintenance" }, { "retry-after": "30" });
      case "/500":
        return sendJson(res, 500, { message: "boom" });
      case "/404":
        return sendJson(res, 404, { message: "Not Found" });
      case "/ruled":
        return sendJson(res, 429, { message: "slow" }, { "retry-after": "7" });
      default:
        return sendJson(res, 404, { message: "Not Found" });
    }
  });
  env.BASE = server.url;
});
after(() => server.close());

const TOOLS = ["429", "429-date", "429-days", "429-bare", "503", "500", "404", "ruled"].map((name) => ({ name: `t${name.replace(/-/g, "_")}`, path: `/${name}` }));

async function make(errors?: unknown[]): Promise<Adapter> {
  return await createRestAdapter({ kind: "rest", baseUrl: "${BASE}", tools: TOOLS, ...(errors ? { errors } : {}) }, { pluginDir: "/tmp", manifest: {}, env, log: silent });
}

/** The error payload the model reads for a call of `tool`. */
async function answer(adapter: Adapter, tool: string): Promise<ErrorPayload> {
  try {
    await adapter.call(tool, {});
  } catch (error) {
    return fromThrown(error).toPayload();
  }
  return assert.fail(`${tool} did not fail`);
}

describe("rest: a busy or failing service", () => {
  it("429 with Retry-After in seconds: the status and the wait in details, a hint to wait and retry the same call", async () => {
    const payload = await answer(await make(), "t429");
    assert.equal(payload.code, "UPSTREAM_ERROR");
    assert.equal(payload.message, 'GET /429 answered HTTP 429: {"message":"slow down"}');
    assert.deepEqual(payload.details, { status: 429, retryAfterSeconds: 2 });
    assert.match(payload.hint, /rate limiting/);
    assert.match(payload.hint, /Wait 2 s .*send the same call again/);
    assert.doesNotMatch(payload.hint, /fix the arguments|different tool/);
  });

  it("429 with Retry-After as an HTTP date: the seconds until then", async () => {
    const payload = await answer(await make(), "t429_date");
    const wait = payload.details?.retryAfterSeconds as number;
    // The date has whole seconds, and the answer took some time to come back on a loaded machine.
    assert.ok(wait >= 60 && wait <= 90, `about 90 s (got ${wait})`);
    assert.match(payload.hint, /tell the user/, "over a minute: the user decides");
  });

  it("a wait of days is capped at an hour", async () => {
    const payload = await answer(await make(), "t429_days");
    assert.equal(payload.details?.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  });

  it("429 without Retry-After: wait a few seconds, and no details field the hint cannot point at", async () => {
    const payload = await answer(await make(), "t429_bare");
    assert.deepEqual(payload.details, { status: 429 });
    assert.match(payload.hint, /Wait a few seconds/);
    assert.doesNotMatch(payload.hint, /retryAfterSeconds/);
  });

  it("503: temporarily unavailable, retry later", async () => {
    const payload = await answer(await make(), "t503");
    assert.deepEqual(payload.details, { status: 503, retryAfterSeconds: 30 });
    assert.match(payload.hint, /temporarily unavailable \(HTTP 503\).*Wait 30 s/);
  });

  it("500: the service failed, the arguments are probably fine", async () => {
    const payload = await answer(await make(), "t500");
    assert.deepEqual(payload.details, { status: 500 });
    assert.match(payload.hint, /failed on its side \(HTTP 500\); the arguments are probably fine/);
  });

  it("404: the service is working and has nothing at what the call names; look it up first, with the status in details", async () => {
    const payload = await answer(await make(), "t404");
    assert.deepEqual(payload.details, { status: 404 });
    assert.match(payload.hint, /working and has nothing at what this call names \(HTTP 404\)/);
    assert.match(payload.hint, /Look it up first/);
    assert.doesNotMatch(payload.hint, /service behind this plugin failed/);
  });

  it("the manifest's errors rule for 429 keeps precedence", async () => {
    const payload = await answer(await make([{ status: 429, message: "ruled: {body.message}", hint: "wait {header.retry-after}s, said the rule" }]), "truled");
    assert.equal(payload.hint, "wait 7s, said the rule");
    assert.deepEqual(payload.details, { status: 429 });
    assert.match(payload.message, /HTTP 429: ruled: slow$/);
  });

  it("retryAfterSeconds reads seconds and dates, and nothing else", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    assert.equal(retryAfterSeconds("5", now), 5);
    assert.equal(retryAfterSeconds(" 0 ", now), 0);
    assert.equal(retryAfterSeconds("Tue, 01 Jan 2030 00:00:10 GMT", now), 10);
    assert.equal(retryAfterSeconds("Mon, 31 Dec 2029 23:00:00 GMT", now), 0, "a date passed: no wait");
    assert.equal(retryAfterSeconds("-3", now), undefined);
    assert.equal(retryAfterSeconds("soon", now), undefined);
    assert.equal(retryAfterSeconds(null, now), undefined);
  });
});
