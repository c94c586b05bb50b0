import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startOllama, type OllamaFixture } from "./fixtures/ollama/server.js";
import { callJson, connect, ROOT, type Connected, type Payload } from "./helpers.js";
import { until } from "./wait.js";

/** The bundled ollama plugin against the stand-in Ollama server, through the facade over stdio. */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-ollama");

/** The first bytes of a PNG: signature and IHDR with the size (all the stand-in reads). */
function pngHeader(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "ascii");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}
const PNG = pngHeader(4, 3).toString("base64");

const data = (payload: Payload) => (payload.result as { data: Record<string, unknown> }).data;
const result = (payload: Payload) => payload.result as Record<string, unknown>;
const call = (server: Connected, toolName: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  callJson(server.client, "agent_tools_ollama_call", { toolName, arguments: args, ...extra });
const skill = (server: Connected, name: string, args: Record<string, unknown>) => callJson(server.client, "agent_tools_ollama_run_skill", { skill: name, arguments: args });

async function waitForJob(server: Connected, jobId: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await until(async () => (status = result((await call(server, "job_status", { jobId })).payload)).state !== "running", `job ${jobId} to finish`);
  return status;
}

describe("ollama plugin", () => {
  let ollama: OllamaFixture;
  let server: Connected;
  before(async () => {
    ollama = await startOllama();
    server = await connect(PLUGIN, { OLLAMA_URL: ollama.url });
  });
  after(async () => {
    await server.close();
    await ollama.close();
  });

  it("discovers ten tools and three skills; only pull_model needs confirm; context names the server", async () => {
    const { payload } = await callJson(server.client, "agent_tools_ollama_discover", { limit: 50 });
    const matches = payload.matches as Array<{ kind?: string; name: string; writes?: boolean }>;
    assert.deepEqual(
      matches.filter((m) => m.kind !== "skill").map((m) => m.name).sort(),
      ["chat", "generate", "job_status", "list_jobs", "list_models", "list_running_models", "pull_model", "show_model", "start_chat", "start_generate"],
    );
    assert.deepEqual(matches.filter((m) => m.writes).map((m) => m.name), ["pull_model"]);
    assert.deepEqual(matches.filter((m) => m.kind === "skill").map((m) => m.name).sort(), ["grounding", "ocr", "vision_chat"]);
    assert.equal((payload.context as { server: string }).server, ollama.url);
  });

  it("list_models, show_model with capabilities, list_running_models after a generate", async () => {
    const models = data((await call(server, "list_models", {})).payload).models as Array<{ name: string }>;
    assert.deepEqual(models.map((m) => m.name), ["llama3.2:latest", "llava:7b", "slow:latest"]);
    const shown = data((await call(server, "show_model", { model: "llava:7b" })).payload);
    assert.deepEqual(shown.capabilities, ["completion", "vision"]);
    const before = data((await call(server, "list_running_models", {})).payload).models as unknown[];
    assert.deepEqual(before, []);
    await call(server, "generate", { model: "llama3.2", prompt: "hi" });
    const running = data((await call(server, "list_running_models", {})).payload).models as Array<{ name: string; size_vram: number }>;
    assert.deepEqual(running.map((m) => m.name), ["llama3.2:latest"]);
  });

  it("generate always sends stream: false and answers the one JSON response", async () => {
    const { payload, isError } = await call(server, "generate", { model: "llama3.2", prompt: "Why is the sky blue?", options: { temperature: 0 } });
    assert.equal(isError, false, JSON.stringify(payload.error));
    const answer = data(payload);
    assert.equal(answer.response, "[llama3.2:latest] Why is the sky blue?");
    assert.equal(answer.done, true);
    const sent = ollama.requests.filter((r) => r.path === "/api/generate").at(-1)!;
    assert.deepEqual(sent.body, { model: "llama3.2", prompt: "Why is the sky blue?", options: { temperature: 0 }, stream: false });
  });

  it("generate and chat pass images to a vision model (base64 and data: URL)", async () => {
    const generated = data((await call(server, "generate", { model: "llava:7b", prompt: "What is this?", images: [PNG] })).payload);
    assert.match(String(generated.response), /I see a PNG image of 4x3 pixels/);
    const chatted = await call(server, "chat", { model: "llava:7b", messages: [{ role: "user", content: "And this?", images: [`data:image/png;base64,${PNG}`] }] });
    assert.equal(chatted.isError, false, JSON.stringify(chatted.payload.error));
    assert.match(String((data(chatted.payload).message as { content: string }).content), /I see a PNG image of 4x3 pixels/);
    const sent = ollama.requests.filter((r) => r.path === "/api/chat").at(-1)!.body as { messages: Array<{ images: string[] }>; stream: boolean };
    assert.deepEqual(sent.messages[0]!.images, [PNG], "the data: prefix is removed");
    assert.equal(sent.stream, false);
  });

  it("an unknown model is an UPSTREAM_ERROR carrying Ollama's 404 message", async () => {
    const { payload, isError } = await call(server, "chat", { model: "nope", messages: [{ role: "user", content: "x" }] });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /POST \/api\/chat answered HTTP 404: .*model 'nope' not found/);
  });

  it("pull_model is refused without confirm, then pulls with it", async () => {
    const refused = await call(server, "pull_model", { model: "qwen2.5vl:3b" });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    assert.equal(ollama.requests.some((r) => r.path === "/api/pull"), false, "nothing was sent");
    const pulled = await call(server, "pull_model", { model: "qwen2.5vl:3b" }, { confirm: true });
    assert.deepEqual(data(pulled.payload), { status: "success" });
    assert.deepEqual(ollama.requests.find((r) => r.path === "/api/pull")?.body, { model: "qwen2.5vl:3b", stream: false });
    const models = data((await call(server, "list_models", {})).payload).models as Array<{ name: string }>;
    assert.ok(models.some((m) => m.name === "qwen2.5vl:3b"));
    const missing = await call(server, "pull_model", { model: "no-such-model" }, { confirm: true });
    assert.match(missing.payload.error?.message ?? "", /HTTP 500: .*file does not exist/);
  });

  it("start_generate answers a job id at once; the job is running until the slow model answers, then succeeded", async () => {
    const started = await call(server, "start_generate", { model: "slow", prompt: "write a long essay" });
    assert.equal(started.isError, false, JSON.stringify(started.payload.error));
    const { jobId, state } = result(started.payload) as { jobId: string; state: string };
    assert.equal(state, "running");
    const running = result((await call(server, "job_status", { jobId })).payload);
    assert.equal(running.state, "running", "the slow model holds its answer until released");
    assert.equal(running.kind, "generate");
    const listed = result((await call(server, "list_jobs", {})).payload) as { jobs: Array<{ id: string; state: string }> };
    assert.deepEqual(listed.jobs.find((j) => j.id === jobId)?.state, "running");
    // release() answers only requests already held: the job's request must have arrived.
    await until(() => ollama.held() > 0, "the job's request to reach the slow model");
    ollama.release();
    const done = await waitForJob(server, jobId);
    assert.equal(done.state, "succeeded");
    assert.equal((done.result as { data: { response: string } }).data.response, "[slow:latest] write a long essay");
    assert.ok(done.finishedAt);
  });

  it("start_chat on an unknown model ends as a failed job with Ollama's message; job_status on a bad id explains", async () => {
    const started = await call(server, "start_chat", { model: "ghost", messages: [{ role: "user", content: "hi" }] });
    const { jobId } = result(started.payload) as { jobId: string };
    const done = await waitForJob(server, jobId);
    assert.equal(done.state, "failed");
    assert.match((done.error as { message: string }).message, /model 'ghost' not found/);
    const listed = result((await call(server, "list_jobs", {})).payload) as { jobs: Array<{ id: string }>; note: string };
    assert.equal(listed.jobs[0]?.id, jobId, "newest first");
    assert.match(listed.note, /kept in memory/);
    const unknown = await call(server, "job_status", { jobId: "job_gone" });
    assert.equal(unknown.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(unknown.payload.error?.message ?? "", /restart/);
  });

  it("vision_chat, ocr and grounding answer with a vision model", async () => {
    const described = await skill(server, "vision_chat", { model: "llava:7b", image: PNG });
    assert.equal(described.isError, false, JSON.stringify(described.payload.error));
    assert.match(String(result(described.payload).text), /I see a PNG image of 4x3 pixels/);
    const read = result((await skill(server, "ocr", { model: "llava:7b", image: PNG })).payload);
    assert.deepEqual(read.lines, ["INVOICE 42", "Total: 17.50"]);
    const ocrSent = ollama.requests.filter((r) => r.path === "/api/chat").at(-1)!.body as { options: unknown };
    assert.deepEqual(ocrSent.options, { temperature: 0 });
    const found = result((await skill(server, "grounding", { model: "llava:7b", image: PNG, target: "the logo" })).payload);
    assert.deepEqual(found.boxes, [{ label: "object", box_2d: [10, 20, 110, 220] }]);
    assert.equal(found.note, undefined);
    assert.equal(found.rejected, undefined);
  });

  it("grounding checks each box: broken items are left out with why, and an answer with no box says so", async () => {
    const ground = async (target: string) => {
      const { payload, isError } = await skill(server, "grounding", { model: "llava:7b", image: PNG, target });
      assert.equal(isError, false, JSON.stringify(payload.error));
      return result(payload) as { boxes: unknown[]; rejected?: Array<{ index: number; item: string; problem: string }>; note?: string; text: string };
    };
    const strings = await ground("the strings");
    assert.deepEqual(strings.boxes, [], "a list of strings is not boxes");
    assert.match(strings.note ?? "", /the model's answer held no box: none of its 1 item\(s\) is \{label, box_2d: \[x1, y1, x2, y2\]\}/);
    assert.deepEqual(strings.rejected, [{ index: 0, item: '"QUJD"', problem: 'it is the text "QUJD", not an object {label, box_2d}' }]);
    assert.equal(strings.text, 'saw ["QUJD"]', "the model's words are kept");

    const mix = await ground("a mix");
    assert.deepEqual(mix.boxes, [{ label: "cat", box_2d: [1, 2, 30, 40] }], "the one good box, read from the fenced block");
    assert.deepEqual(
      mix.rejected?.map((r) => [r.index, r.problem]),
      [
        [1, 'its box_2d[2] is the text "9", not a pixel coordinate (a number of at least 0)'],
        [2, "it has no label (a non-empty string)"],
        [3, "its box_2d [50,10,20,30] is not [x1, y1, x2, y2] with x1 ≤ x2 and y1 ≤ y2"],
        [4, "its box_2d is a list of 3, not four numbers [x1, y1, x2, y2]"],
        [5, 'it is the text "tree", not an object {label, box_2d}'],
      ],
    );
    assert.equal(mix.note, "5 of the 6 items the model answered are not boxes {label, box_2d: [x1, y1, x2, y2]} and were left out; see rejected");

    const none = await ground("nothing");
    assert.deepEqual(none.boxes, []);
    assert.equal(none.note, "the model found no match: it answered an empty list");
    const prose = await ground("the moon");
    assert.deepEqual(prose.boxes, []);
    assert.equal(prose.note, "the model's answer held no JSON array of boxes; see text");
  });

  it("the vision skills refuse a model without the vision capability, before sending the image", async () => {
    for (const name of ["vision_chat", "ocr", "grounding"]) {
      const chats = ollama.requests.filter((r) => r.path === "/api/chat").length;
      const { payload, isError } = await skill(server, name, { model: "llama3.2", image: PNG, ...(name === "grounding" ? { target: "x" } : {}) });
      assert.equal(isError, true, name);
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(payload.error?.message ?? "", /model 'llama3.2' has no vision capability \(it has: completion, tools\), so it would ignore the image/);
      assert.equal(ollama.requests.filter((r) => r.path === "/api/chat").length, chats, `${name} sent no chat`);
    }
  });

  it("a vision skill whose chat fails after the capability check reports the failing call", async () => {
    const { payload, isError } = await skill(server, "vision_chat", { model: "llava:7b", image: "not base64!" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /POST \/api\/chat answered HTTP 400: .*illegal base64/);
    const unknown = await skill(server, "ocr", { model: "ghost", image: PNG });
    assert.match(unknown.payload.error?.message ?? "", /POST \/api\/show answered HTTP 404: .*model 'ghost' not found/);
  });
});

describe("ollama plugin: image files, cloud key and no server", () => {
  let ollama: OllamaFixture;
  const dir = mkdtempSync(path.join(os.tmpdir(), "ollama-images-"));
  before(async () => {
    ollama = await startOllama({ token: "cloud-key-123456" });
    writeFileSync(path.join(dir, "scan.png"), pngHeader(8, 5));
    writeFileSync(path.join(os.tmpdir(), "outside-ollama-test.png"), pngHeader(1, 1));
  });
  after(async () => {
    await ollama.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(os.tmpdir(), "outside-ollama-test.png"), { force: true });
  });

  it("with OLLAMA_URL and OLLAMA_API_KEY: sends the bearer token; images may name files under OLLAMA_IMAGE_DIR only", async () => {
    const server = await connect(PLUGIN, { OLLAMA_URL: ollama.url, OLLAMA_API_KEY: "cloud-key-123456", OLLAMA_IMAGE_DIR: dir });
    try {
      const { payload, isError } = await call(server, "generate", { model: "llava:7b", prompt: "read", images: ["scan.png"] });
      assert.equal(isError, false, JSON.stringify(payload.error));
      assert.match(String(data(payload).response), /PNG image of 8x5 pixels/);
      assert.equal(ollama.requests.at(-1)?.authorization, "Bearer cloud-key-123456");
      const outside = await call(server, "generate", { model: "llava:7b", prompt: "read", images: ["../outside-ollama-test.png"] });
      assert.equal(outside.payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(outside.payload.error?.message ?? "", /outside OLLAMA_IMAGE_DIR/);
      const skillFile = await skill(server, "vision_chat", { model: "llava:7b", image: "scan.png" });
      assert.match(String(result(skillFile.payload).text), /8x5/);
    } finally {
      await server.close();
    }
  });

  it("without OLLAMA_IMAGE_DIR a file name is refused and no host file is read; without the key the server answers 401", async () => {
    const server = await connect(PLUGIN, { OLLAMA_URL: ollama.url });
    try {
      const { payload } = await call(server, "chat", { model: "llava:7b", messages: [{ role: "user", content: "x", images: [path.join(dir, "scan.png")] }] });
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(payload.error?.message ?? "", /messages\[0\]\.images\[0\]: .*reading host files is off.*OLLAMA_IMAGE_DIR/);
      const denied = await call(server, "list_models", {});
      assert.match(denied.payload.error?.message ?? "", /HTTP 401: .*unauthorized/);
    } finally {
      await server.close();
    }
  });

  it("with only OLLAMA_API_KEY it targets Ollama Cloud with a bearer token (shown by discover, no call made)", async () => {
    const server = await connect(PLUGIN, { OLLAMA_API_KEY: "cloud-key-123456" });
    try {
      const { payload } = await callJson(server.client, "agent_tools_ollama_discover", { query: "models" });
      assert.deepEqual(payload.context, {
        server: "https://ollama.com",
        note: "Ollama Cloud (only OLLAMA_API_KEY is set)",
        auth: "bearer token from OLLAMA_API_KEY",
        imageFiles: "images must be base64 (OLLAMA_IMAGE_DIR is not set)",
      });
      assert.doesNotMatch(JSON.stringify(payload), /cloud-key-123456/, "the key is never shown");
    } finally {
      await server.close();
    }
  });

  it("needs no variable (localhost default) and says so in help; no server listening is an UPSTREAM_ERROR naming the connection", async () => {
    const closed = await startOllama();
    const url = closed.url;
    await closed.close();
    const server = await connect(PLUGIN, { OLLAMA_URL: url });
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      assert.equal((payload.plugins as Array<{ prefix: string; status: string }>).find((p) => p.prefix === "ollama")?.status, "configured, not checked", "nothing has answered, so it is not called ready");
      const { payload: answer, isError } = await call(server, "list_models", {});
      assert.equal(isError, true);
      assert.equal(answer.error?.code, "UPSTREAM_ERROR");
      assert.match(answer.error?.message ?? "", /GET \/api\/tags failed: .*ECONNREFUSED/);
      // Its base URL is OLLAMA_URL's (the module builds the block): the hint names that, no plugin.json field, no openapi spec.
      assert.match(answer.error?.hint ?? "", /check that OLLAMA_URL \(the base URL's variable, in the agent-tools server's environment\) names the right host and port/);
      assert.doesNotMatch(answer.error?.hint ?? "", /plugin\.json|openapi/);
    } finally {
      await server.close();
    }
  });
});
