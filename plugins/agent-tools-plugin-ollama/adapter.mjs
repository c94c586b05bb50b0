import { readFileSync } from "node:fs";
import path from "node:path";
// The runtime's own package (a self-reference: this folder ships inside agent-tools-runtime).
import { createRestAdapter } from "agent-tools-runtime/adapters";
import { withBase64Images } from "./lib/images.mjs";

/**
 * The Ollama plugin. Its HTTP tools are declarative (rest.json, run by the runtime's `rest`
 * kind); this module adds only what data cannot say: which server to target (OLLAMA_URL, or
 * Ollama Cloud when only OLLAMA_API_KEY is set), images given as data URLs or file names, and
 * background jobs (start_generate, start_chat, job_status, list_jobs) on the runtime's per-session
 * job store. Jobs live in memory: a restart of the agent-tools server loses them.
 */

export const DEFAULT_URL = "http://localhost:11434";
export const CLOUD_URL = "https://ollama.com";
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** Where the calls go and with what credentials, from the host environment. */
export function ollamaTarget(env) {
  const key = env.OLLAMA_API_KEY ? { type: "bearer", token: "${OLLAMA_API_KEY}" } : undefined;
  if (env.OLLAMA_URL) return { baseUrl: "${OLLAMA_URL}", shown: env.OLLAMA_URL, cloud: false, auth: key };
  if (key) return { baseUrl: CLOUD_URL, shown: CLOUD_URL, cloud: true, auth: key };
  return { baseUrl: DEFAULT_URL, shown: DEFAULT_URL, cloud: false };
}

function timeoutFrom(env) {
  const n = Number(env.OLLAMA_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_TIMEOUT_MS;
}

const JOB_ID = { type: "object", properties: { jobId: { type: "string", minLength: 1, description: "The id start_generate or start_chat answered" } }, required: ["jobId"], additionalProperties: false };
const RUNS = { start_generate: "generate", start_chat: "chat" };

function jobError(message) {
  const error = new Error(message);
  error.code = "NOT_CONFIGURED";
  return error;
}

export default async function createOllamaAdapter(options) {
  const { env } = options;
  const spec = JSON.parse(readFileSync(path.join(options.pluginDir, "rest.json"), "utf8"));
  const target = ollamaTarget(env);
  // The base URL is OLLAMA_URL's (localhost when unset), not a plugin.json field: an unreachable
  // server's hint names the variable (settings.hostVariables).
  const settings = { field: "adapter", file: "plugin.json", ...options.settings, hostVariables: { ...options.settings?.hostVariables, baseUrl: "OLLAMA_URL" } };
  const rest = await createRestAdapter(
    { kind: "rest", ...spec, baseUrl: target.baseUrl, timeoutMs: timeoutFrom(env), ...(target.auth ? { auth: target.auth } : {}) },
    { ...options, settings },
  );
  const { tools: restTools } = await rest.listTools();
  const byName = new Map(restTools.map((t) => [t.name, t]));
  const imageDir = env.OLLAMA_IMAGE_DIR || undefined;
  const jobTools = [
    {
      name: "start_generate",
      description: "Like generate, but answers a job id at once and runs in the background; poll job_status. For models slower than one call may wait. Jobs are in memory only: a server restart loses them.",
      inputSchema: byName.get("generate").inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    {
      name: "start_chat",
      description: "Like chat, but answers a job id at once and runs in the background; poll job_status. Jobs are in memory only: a server restart loses them.",
      inputSchema: byName.get("chat").inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    { name: "job_status", description: "State of a background job: running, succeeded (with the model's answer) or failed (with the error).", inputSchema: JOB_ID, annotations: { readOnlyHint: true } },
    { name: "list_jobs", description: "Every background job of this session kept in memory, newest first.", inputSchema: { type: "object", properties: {}, additionalProperties: false }, annotations: { readOnlyHint: true } },
  ];
  const tools = [...restTools, ...jobTools];

  function jobsOf(ctx) {
    if (!ctx?.jobs) throw jobError("this runtime gives adapters no job store; upgrade agent-tools-runtime to use background jobs");
    return ctx.jobs;
  }

  return {
    async listTools() {
      return { tools };
    },
    async discoverContext() {
      return {
        server: target.shown,
        ...(target.cloud ? { note: "Ollama Cloud (only OLLAMA_API_KEY is set)" } : {}),
        auth: target.auth ? "bearer token from OLLAMA_API_KEY" : "none",
        imageFiles: imageDir ? "images may name files under OLLAMA_IMAGE_DIR" : "images must be base64 (OLLAMA_IMAGE_DIR is not set)",
      };
    },
    async call(name, args, ctx) {
      if (name === "job_status") return jobsOf(ctx).require(args.jobId);
      if (name === "list_jobs") {
        const jobs = await jobsOf(ctx).list();
        return { jobs, count: jobs.length, note: "jobs are kept in memory (lost on restart) unless the gateway shares state in Redis" };
      }
      const runs = RUNS[name];
      if (runs) {
        const jobs = jobsOf(ctx);
        // Images are read now, so a bad one fails the start call instead of the job.
        const prepared = await withBase64Images(runs, args, imageDir);
        const log = ctx.log;
        const jobId = await jobs.start((signal) => rest.call(runs, prepared, { signal, sessionId: ctx.sessionId, log }), { kind: runs });
        return { jobId, state: "running", model: args.model, next: `agent_tools_ollama_call {"toolName":"job_status","arguments":{"jobId":"${jobId}"}}` };
      }
      return rest.call(name, await withBase64Images(name, args, imageDir), ctx);
    },
  };
}
