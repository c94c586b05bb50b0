import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { connect, writePlugin, type Connected } from "./helpers.js";

/**
 * A credential echoed back in the form the runtime sent it, or its service's framework escapes it,
 * is masked as the credential itself is: over stdio, the built server, REST plugins with query,
 * header and login auth against a real local HTTP server that repeats the request in a 500 text,
 * a 200 JSON body and an HTML page. The query is built with URLSearchParams (space as `+`,
 * `!~()'*` as `%XX`), which encodeURIComponent writes otherwise: a key with a `!` or a space
 * was readable in the echoed URL.
 */

/** A secret of each class of characters that encoders write differently. */
const SECRETS: Record<string, string> = {
  space: "open sesame 12345 now",
  punctuation: "pa!ss~wo(r)d'*9876",
  reserved: "abc+def/ghi=jkl&mnop123",
  html: 'x<y>&"z"-secret-42',
  unicode: "sécret-ключ-密钥-1234",
};
/** A header key with characters HTML escapes and a trailing line break (a value read from a file): fetch sends it trimmed. */
const HEADER_KEY = 'h<d>&r"=+/ 9921\n';
/** A login password with what JSON escapes (`"`, `\`) and a non-ASCII letter. */
const LOGIN_PASSWORD = 'pw"with\\back-slash-é-77';

const htmlEscaped = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
const lowerHex = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
const formEncoded = (text: string): string => new URLSearchParams({ k: text }).toString().slice(2);

/** Every way the server below writes `secret` (and the encoders of other services would): none may reach an answer. */
function writtenForms(secret: string): string[] {
  const forms = [secret, secret.trim(), encodeURIComponent(secret), formEncoded(secret), JSON.stringify(secret).slice(1, -1), htmlEscaped(secret), htmlEscaped(secret.trim())];
  return [...new Set([...forms, ...forms.map(lowerHex)])];
}

function assertNoForm(text: string, secret: string, where: string): void {
  for (const form of writtenForms(secret)) assert.ok(!text.includes(form), `${where}: the answer holds ${JSON.stringify(form)}: ${text}`);
}

describe("a credential echoed in an encoded or escaped form", () => {
  let backend: TestServer;
  let server: Connected;
  const dir = mkdtempSync(path.join(tmpdir(), "redaction-forms-"));
  before(async () => {
    backend = await startServer((req, res) => {
      const url = new URL(req.url, "http://echo.test");
      const key = url.searchParams.get("appid") ?? String(req.headers["x-api-key"] ?? "");
      if (url.pathname === "/login") {
        res.writeHead(400, { "content-type": "text/plain" });
        res.end(`bad login: ${req.body}`);
      } else if (url.pathname === "/fail") {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`internal error for ${req.url} (key ${key})`);
      } else if (url.pathname === "/page") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<p>${htmlEscaped(req.url)}</p><p>${htmlEscaped(key)}</p>`);
      } else {
        sendJson(res, 200, { url: req.url, lowerHex: lowerHex(req.url), key, component: encodeURIComponent(key), lowerComponent: lowerHex(encodeURIComponent(key)), html: htmlEscaped(key) });
      }
    });
    const tools = [
      { name: "echo", path: "/echo", readonly: true },
      { name: "fail", path: "/fail", readonly: true },
      { name: "page", path: "/page", readonly: true },
    ];
    const env: Record<string, string> = { HEADER_KEY, LOGIN_PASSWORD };
    for (const [kind, secret] of Object.entries(SECRETS)) {
      env[`KEY_${kind.toUpperCase()}`] = secret;
      writePlugin(path.join(dir, `agent-tools-plugin-q${kind}`), {
        name: `q${kind}`,
        prefix: `q${kind}`,
        description: "A REST service with its key in the query (tests only)",
        // `appid`: no name the credential-shape masking knows; only the registered key masks it.
        adapter: { kind: "rest", baseUrl: backend.url, auth: { type: "query", name: "appid", value: `\${KEY_${kind.toUpperCase()}}` }, tools },
      });
    }
    writePlugin(path.join(dir, "agent-tools-plugin-hdr"), {
      name: "hdr",
      prefix: "hdr",
      description: "A REST service with its key in a header (tests only)",
      adapter: { kind: "rest", baseUrl: backend.url, auth: { type: "header", name: "X-Api-Key", value: "${HEADER_KEY}" }, tools },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-login"), {
      name: "login",
      prefix: "login",
      description: "A REST service with a login (tests only)",
      adapter: { kind: "rest", baseUrl: backend.url, auth: { type: "login", url: "/login", body: { user: "ann", password: "${LOGIN_PASSWORD}" }, tokenPath: "token" }, tools },
    });
    server = await connect(dir, env);
  });
  after(async () => {
    await server.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The answer's text (what the model reads) and its parsed payload. */
  async function call(prefix: string, toolName: string): Promise<{ text: string; payload: Record<string, unknown> }> {
    const answer = await server.client.callTool({ name: `agent_tools_${prefix}_call`, arguments: { toolName } });
    const text = (answer.content as { type: string; text: string }[])[0]?.text ?? "";
    return { text, payload: JSON.parse(text) as Record<string, unknown> };
  }

  for (const [kind, secret] of Object.entries(SECRETS)) {
    it(`a query key with ${kind} characters is masked in the URL as sent, lower-case hex, decoded, HTML-escaped, in a 200 and a 500`, async () => {
      const sent = backend.requests.length;
      const echo = await call(`q${kind}`, "echo");
      // The key did go out, as URLSearchParams writes it.
      assert.equal(backend.requests[sent]?.url, `/echo?appid=${formEncoded(secret)}`);
      const data = (echo.payload.result as { data: Record<string, string> }).data;
      assert.deepEqual(data, {
        url: "/echo?appid=[redacted]",
        lowerHex: "/echo?appid=[redacted]",
        key: "[redacted]",
        component: "[redacted]",
        lowerComponent: "[redacted]",
        html: "[redacted]",
      });
      assertNoForm(echo.text, secret, "echo");

      const failed = await call(`q${kind}`, "fail");
      const error = failed.payload.error as { code: string; message: string };
      assert.equal(error.code, "UPSTREAM_ERROR", failed.text);
      assert.match(error.message, /internal error for \/fail\?appid=\[redacted\] \(key \[redacted\]\)/);
      assertNoForm(failed.text, secret, "fail");

      const page = await call(`q${kind}`, "page");
      assert.match(page.text, /<p>\/page\?appid=\[redacted\]<\/p><p>\[redacted\]<\/p>/);
      assertNoForm(page.text, secret, "page");
    });
  }

  it("a header key is masked as fetch sent it (trimmed), and HTML-escaped", async () => {
    const sent = backend.requests.length;
    const failed = await call("hdr", "fail");
    assert.equal(backend.requests[sent]?.headers["x-api-key"], HEADER_KEY.trim());
    assert.match((failed.payload.error as { message: string }).message, /\(key \[redacted\]\)/);
    assertNoForm(failed.text, HEADER_KEY, "fail");
    const page = await call("hdr", "page");
    assert.match(page.text, /<p>\/page<\/p><p>\[redacted\]<\/p>/);
    assertNoForm(page.text, HEADER_KEY, "page");
  });

  it("a login password is masked JSON-escaped, as the refused login's body quotes it", async () => {
    const failed = await call("login", "echo");
    const error = failed.payload.error as { message: string };
    // The body went out as JSON, and came back quoted in the 400's text.
    assert.match(backend.requests.at(-1)?.body ?? "", /"password":"pw\\"with\\\\back/);
    assert.match(error.message, /bad login: \{"user":"ann","password":"\[redacted\]"\}/);
    assertNoForm(failed.text, LOGIN_PASSWORD, "login");
  });
});
