import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, FIXTURES, ROOT, type Connected, type Payload } from "./helpers.js";

/** The bundled kite-lite plugin against the SDK stand-in server, reading pages from a local HTTP server. */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-kite-lite");
const BIN = path.join(FIXTURES, "kite-lite", "kite-lite.mjs");

const PAGE = `<!doctype html><html><head><title>Kite &amp; Co</title></head><body>
<h1>Welcome</h1><p>Kites fly when the wind is steady.</p>
<h2>Models</h2><ul><li><a href="/models/delta">Delta kite</a></li><li><a href="https://example.org/box">Box kite</a></li></ul>
<script>var hidden = "not text";</script></body></html>`;

let site: TestServer;
before(async () => {
  site = await startServer((req, res) => {
    if (req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(PAGE);
    } else if (req.url === "/data.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kites: 3 }));
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such page");
    }
  });
});
after(async () => site.close());

const result = (payload: Payload) => payload.result as Record<string, unknown>;
async function call(server: Connected, toolName: string, args: Record<string, unknown>, confirm?: boolean) {
  return callJson(server.client, "agent_tools_kite_call", { toolName, arguments: args, ...(confirm ? { confirm } : {}) });
}
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, "base64");
  assert.equal(bytes.subarray(1, 4).toString("ascii"), "PNG");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe("kite-lite plugin (KITE_LITE_BIN)", () => {
  let server: Connected;
  before(async () => {
    server = await connect(PLUGIN, { KITE_LITE_BIN: BIN });
  });
  after(async () => server.close());

  it("lists the six tools and the page-overview skill; only eval_js needs confirm (README: what changes data)", async () => {
    const { payload } = await callJson(server.client, "agent_tools_kite_discover", { limit: 10 });
    const matches = payload.matches as Array<{ kind?: string; name: string; writes?: boolean }>;
    assert.deepEqual(matches.filter((m) => m.kind !== "skill").map((m) => m.name).sort(), ["browser_get_dom", "browser_navigate", "browser_screenshot", "eval_js", "fetch_page", "render_screenshot"]);
    assert.deepEqual(matches.filter((m) => m.writes).map((m) => m.name), ["eval_js"]);
    assert.deepEqual(matches.filter((m) => m.kind === "skill").map((m) => m.name), ["page-overview"]);
  });

  it("fetch_page answers status, title and the text without scripts", async () => {
    const { payload, isError } = await call(server, "fetch_page", { url: `${site.url}/` });
    assert.equal(isError, false, JSON.stringify(payload.error));
    const page = result(payload);
    assert.equal(page.status, 200);
    assert.equal(page.title, "Kite & Co");
    assert.match(String(page.text), /Kites fly when the wind is steady/);
    assert.doesNotMatch(String(page.text), /not text/);
  });

  it("navigation in the automation browser needs no confirm, though the server does not annotate it", async () => {
    const { payload, isError } = await call(server, "browser_navigate", { url: `${site.url}/` });
    assert.equal(isError, false, JSON.stringify(payload.error));
    assert.equal(result(payload).title, "Kite & Co");
  });

  it("eval_js needs confirm (the server calls it read-only; a script can act on the page), then evaluates against the page's document", async () => {
    const refused = await call(server, "eval_js", { url: `${site.url}/`, script: "document.title" });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    // The refusal says the rule that applied: confirmTools, despite the server's readOnlyHint.
    assert.equal(
      refused.payload.error?.details?.why,
      "in confirmTools (despite readOnlyHint)",
    );
    const { payload } = await call(server, "eval_js", { url: `${site.url}/`, script: "({ title: document.title, links: document.querySelectorAll('a').map(a => a.href) })" }, true);
    assert.deepEqual(result(payload).result, { title: "Kite & Co", links: ["/models/delta", "https://example.org/box"] });
    const broken = await call(server, "eval_js", { url: `${site.url}/`, script: "nope()" }, true);
    assert.equal(broken.isError, true);
    assert.match(broken.payload.error?.message ?? "", /the script failed: nope is not defined/);
  });

  it("browser_get_dom filters by tag selector", async () => {
    const { payload } = await call(server, "browser_get_dom", { url: `${site.url}/`, selector: "h1,h2" });
    const dom = result(payload) as { count: number; nodes: Array<{ tag: string; text: string }> };
    assert.deepEqual(dom.nodes.map((n) => [n.tag, n.text]), [["h1", "Welcome"], ["h2", "Models"]]);
  });

  it("browser_screenshot and render_screenshot return PNG images of the asked size", async () => {
    // The answer's JSON holds a placeholder for each image (no base64 in the text); the image
    // itself follows the JSON as MCP image content (binary-content.ts).
    const screenshot = async (toolName: string, args: Record<string, unknown>) => {
      const answer = (await server.client.callTool({ name: "agent_tools_kite_call", arguments: { toolName, arguments: args } })) as CallToolResult;
      const [text, ...media] = answer.content;
      assert.equal(text?.type, "text");
      const payload = JSON.parse((text as { text: string }).text) as Payload & { attached?: string };
      const placeholders = (payload.result as Array<{ type: string; data?: string; mimeType?: string; bytes?: number; text?: string }>).filter((c) => c.type === "image");
      assert.equal(placeholders.length, 1, JSON.stringify(payload.result));
      assert.equal(placeholders[0]!.data, undefined, "no base64 in the answer's text");
      assert.match(payload.attached ?? "", /image \(image\/png\)/);
      const image = media.find((c) => c.type === "image") as { data: string; mimeType: string } | undefined;
      assert.equal(image?.mimeType, "image/png");
      assert.equal(placeholders[0]!.bytes, Buffer.from(image!.data, "base64").length);
      return { payload, image: image! };
    };
    const shot = await screenshot("browser_screenshot", { url: `${site.url}/`, width: 320, height: 200 });
    assert.deepEqual(pngSize(shot.image.data), { width: 320, height: 200 });
    const content = shot.payload.result as Array<{ type: string; text?: string }>;
    assert.match(content.find((c) => c.type === "text")?.text ?? "", /"title":"Kite & Co"/);
    const rendered = await screenshot("render_screenshot", { html: "<title>x</title><p>hi</p>", width: 64, height: 48 });
    assert.deepEqual(pngSize(rendered.image.data), { width: 64, height: 48 });
  });

  it("page-overview gives title, headings, links and excerpt in one call", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_kite_run_skill", { skill: "page-overview", arguments: { url: `${site.url}/`, max_links: 1 } });
    assert.equal(isError, false, JSON.stringify(payload.error));
    const overview = result(payload);
    assert.equal(overview.title, "Kite & Co");
    assert.deepEqual(overview.headings, [{ level: 1, text: "Welcome" }, { level: 2, text: "Models" }]);
    assert.deepEqual(overview.links, [{ text: "Delta kite", href: "/models/delta" }]);
    assert.equal(overview.linkCount, 2);
    assert.equal(overview.complete, true);
    assert.match(String(overview.excerpt), /^Welcome Kites fly/);
  });

  it("page-overview: the DOM step failing in the middle keeps what fetch found and names the failed step", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_kite_run_skill", { skill: "page-overview", arguments: { url: `${site.url}/data.json` } });
    assert.equal(isError, false);
    const overview = result(payload) as { complete: boolean; steps: Record<string, string>; excerpt: string; status: number };
    assert.equal(overview.complete, false);
    assert.equal(overview.steps.fetch_page, "ok");
    assert.match(overview.steps.browser_get_dom ?? "", /failed: .*not an HTML document/);
    assert.equal(overview.excerpt, '{"kites":3}');
  });

  it("a page that cannot be loaded is an UPSTREAM_ERROR naming it", async () => {
    const { payload, isError } = await call(server, "browser_get_dom", { url: `${site.url}/gone` });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /\/gone answered HTTP 404/);
  });
});

describe("kite-lite plugin found on PATH", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kite-path-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("uses kite-lite from PATH when KITE_LITE_BIN is not set", async () => {
    symlinkSync(BIN, path.join(dir, "kite-lite"));
    const server = await connect(PLUGIN, { PATH: `${dir}${path.delimiter}${process.env.PATH ?? ""}` });
    try {
      const { payload } = await call(server, "fetch_page", { url: `${site.url}/` });
      assert.equal(result(payload).title, "Kite & Co");
    } finally {
      await server.close();
    }
  });
});

describe("kite-lite plugin without the binary", () => {
  it("loads, help says to set KITE_LITE_BIN or install kite-lite, calls answer NOT_CONFIGURED", async () => {
    const server = await connect(PLUGIN, { PATH: path.dirname(process.execPath) });
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      const entry = (payload.plugins as Array<{ prefix: string; status: string }>).find((p) => p.prefix === "kite");
      assert.match(entry?.status ?? "", /not configured: set KITE_LITE_BIN to the kite-lite program or install kite-lite on PATH/);
      const { payload: answer, isError } = await call(server, "fetch_page", { url: `${site.url}/` });
      assert.equal(isError, true);
      assert.equal(answer.error?.code, "NOT_CONFIGURED");
      const skill = await callJson(server.client, "agent_tools_kite_run_skill", { skill: "page-overview", arguments: { url: `${site.url}/` } });
      assert.equal(skill.payload.error?.code, "NOT_CONFIGURED");
    } finally {
      await server.close();
    }
  });
});
