/**
 * The Adapter contract: what every adapter kind and every hand-written plugin adapter implements.
 * Method names and shapes match plugins written for the original JavaScript runtime, so their
 * `.mjs` adapters load unmodified.
 */

import type { JobStore } from "../runtime/jobs.js";
import type { CallRelay } from "./relay.js";
import type { Redactor } from "./shared/redact.js";
import type { SharedTokenState } from "./mcp/oauth-token-store.js";
import type { Cancel } from "../cancel.js";
import type { RuntimeError } from "../errors.js";

export type JsonSchema = Record<string, unknown>;

/** The `annotations` of an MCP tool (only the hints the runtime reads are typed). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** One tool, in the shape of an MCP `tools/list` entry. */
export interface ToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  annotations?: ToolAnnotations;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface CallContext {
  /** Aborted when the call times out or the client cancels it. */
  signal: AbortSignal;
  /**
   * The same cancellation, to listen to without making the AbortSignal (cancel.ts: the runtime's
   * own adapters read this on their hot path; `signal` stays what any other adapter reads).
   */
  cancel?: Cancel;
  /**
   * Epoch ms when the caller stops waiting for this call (the pipeline's deadline), when it has
   * one: an adapter that queues a call (adapters/mcp/call-gate.ts) gives up in time to say why.
   */
  deadline?: number;
  sessionId: string;
  log: Logger;
  /** What the downstream server sends during this call, relayed to the agent's client (adapters/relay.ts). */
  relay?: CallRelay;
  /** This plugin's background jobs in this session (see runtime/jobs.ts); in memory only. */
  jobs?: JobStore;
  /**
   * The redactor the caller passes this call's result through before anyone sees it (the
   * runtime's pipeline, for a plugin's tool call: the fleet's, in its shape step). An adapter that
   * would mask the result with this same redactor may leave that to the caller (the result is
   * masked once); one with a redactor of its own masks as always.
   */
  resultRedactor?: Redactor;
  /**
   * Say something about this call's result that the answer should carry beside it (`warnings`):
   * what the adapter noticed and passed on anyway rather than lose the result. Masked like the answer.
   */
  warn?: (message: string) => void;
}

/** What a backend says of itself: MCP `serverInfo` (name, version, title, description) and `instructions`. */
export interface ServerDescription {
  name: string;
  version: string;
  title?: string;
  description?: string;
  instructions?: string;
}

export interface Match {
  name: string;
  description?: string;
  score?: number;
}

/** How a listing is asked for. */
export interface ListToolsOptions {
  /**
   * Nobody waits for this listing (the catalog's background upkeep stores it for later starts):
   * a server started only to answer it may stop as soon as it has, until a call needs it. The
   * caller may clear it while the listing runs (a search or discover joined it and a call may
   * follow): an adapter that acts on it reads it once the listing is done. Adapters may ignore
   * it; it is not a tools/list parameter.
   */
  background?: boolean;
  /**
   * Ask the backend, not a list the adapter keeps: the runtime believes it changed without saying
   * so (a call to a listed tool was answered "unknown tool"). Adapters without a list of their
   * own ignore it.
   */
  fresh?: boolean;
}

export interface Adapter {
  /**
   * `notes`: a sentence for each entry of the backend's list that was mended or left out (said on
   * stderr and in help). `ttlMs`: how long the backend said the list stays current (a 2026-07-28
   * MCP list result's cache lifetime); absent, until it says it changed.
   */
  listTools(options?: ListToolsOptions): Promise<{ tools: ToolDescriptor[]; notes?: string[]; ttlMs?: number }>;
  /** Returns an MCP CallToolResult or any JSON value. */
  call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<unknown>;
  search?(query: string, limit: number): Promise<{ matches: Match[] }>;
  describe?(name: string): Promise<ToolDescriptor>;
  discoverContext?(): Promise<unknown>;
  close?(): Promise<void>;
  /**
   * Optional: subscribe to changes of the tool list (a downstream `notifications/tools/list_changed`).
   * The runtime then drops its cached catalog and tells its own clients.
   */
  onToolsChanged?(listener: () => void): void;
  /**
   * Optional: the server's own name and version (MCP `serverInfo`) once it has been reached. The
   * runtime stores it with the catalog and notices when an upgrade changed the server.
   */
  serverInfo?(): ServerDescription | undefined;
  /**
   * Optional: what the adapter learnt about the backend's protocol that a restart should not
   * learn again (an MCP server's era verdict: its server/discover answer, or "legacy"). Plain
   * JSON, opaque to the runtime, which keeps it with the catalog and hands it back through
   * `adoptProtocol` when the catalog is restored from the cache.
   */
  protocolVerdict?(): unknown;
  /** Optional: take a verdict kept from an earlier run; one the adapter does not recognise is ignored. */
  adoptProtocol?(verdict: unknown): void;
  /**
   * Optional: why the backend is failing right now (a server that could not be started or
   * reached), for help; undefined while it works or before its first use.
   */
  health?(): AdapterHealth | undefined;
  /**
   * Optional: while the backend is still starting (an MCP server's handshake not done), the
   * failed start to answer for a call whose deadline passed during it: the call's own words
   * ("retry with a narrower request") do not fit a call that never reached the backend.
   */
  stillStarting?(): RuntimeError | undefined;
  /**
   * Optional: whether a call of one of the adapter's own methods only reads, given its arguments
   * (`method` is dotted for a method of an object the adapter holds: `"rest.request"`). A skill
   * reaches every method but `call` and the contract's read methods through the write gate (the
   * confirmation, a read-only identity's FORBIDDEN, the audit log) unless this answers true: an
   * adapter that hands skills a client says here which of its calls change nothing.
   */
  readsOnly?(method: string, args: readonly unknown[]): boolean;
}

export interface AdapterHealth {
  state: "failing";
  reason: string;
  /** When the adapter will try again (ms from now), if it backs off. */
  retryInMs?: number;
}

/** What a module adapter's class constructor or factory receives. */
export interface AdapterOptions {
  /** Absolute path of the plugin's folder. */
  pluginDir: string;
  /** The normalised manifest (runtime section). */
  manifest: Readonly<Record<string, unknown>>;
  /** The host environment; credentials are read from here, never from tool arguments. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The runtime's one redactor: register secrets learnt at run time (a login's token) here. */
  redactor?: Redactor;
  /** The gateway's shared state (key-value and locks), for adapters that keep credentials several instances share. */
  shared?: SharedTokenState;
  /** Where the adapter's settings are written, for messages that say what to change (plugins/manifest.ts, settingsOf). */
  settings?: SettingsLocation;
}

/** A field path in a file: `mcpServers.notes` in a config file, `adapter` in a plugin.json. */
export interface SettingsLocation {
  /** The adapter block's field path; a setting of it is `${field}.cwd`. */
  field: string;
  file: string;
  /** An embedded default server's: the host variable that sets it up, named instead of its fields (no file holds them). */
  variable?: string;
  /**
   * A server configured from host variables (a text module's AGENT_MCP_URL): each setting's
   * variable, named instead of a field. A module adapter that builds a rest or openapi block in
   * code names its base URL's variable here as `baseUrl` (the ollama plugin's OLLAMA_URL), so an
   * unreachable service's hint names that variable, not a plugin.json field it does not have.
   */
  hostVariables?: Readonly<Record<string, string>>;
  /**
   * What the `url` setting must hold, where it is not the MCP endpoint itself: n8n's
   * N8N_INSTANCE_URL is the instance's base address and the plugin adds the MCP path.
   */
  urlMeaning?: string;
}

/**
 * "`mcpServers.notes.cwd` in /home/u/agent-tools.config.json": a setting named where the user
 * edits it; for an embedded default server, the variable that sets it up.
 */
export function settingAt(settings: SettingsLocation | undefined, key: string): string {
  const variable = settings?.hostVariables?.[key];
  if (variable) return `${variable} in the server's environment`;
  if (settings?.variable) return `the variable ${settings.variable} (this server is an embedded default: no file holds its settings)`;
  return settings ? `\`${settings.field}.${key}\` in ${settings.file}` : `\`adapter.${key}\``;
}

/** What an MCP server's `url` setting must hold, as hints say it: the entry's own meaning (urlMeaning) or the MCP endpoint. */
export function mcpEndpointMeaning(settings: SettingsLocation | undefined): string {
  return settings?.urlMeaning ?? "the server's MCP endpoint (the URL its documentation gives for MCP, often ending in /mcp)";
}

/** Several settings of one server, each named once: an embedded default's all come to its one variable. */
export function settingsAt(settings: SettingsLocation | undefined, keys: readonly string[], joiner = ", "): string {
  return [...new Set(keys.map((key) => settingAt(settings, key)))].join(joiner);
}

export function isAdapter(value: unknown): value is Adapter {
  if (value === null || typeof value !== "object") return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.listTools === "function" && typeof candidate.call === "function";
}
