import path from "node:path";
import { inputRequired, ProtocolError, ProtocolErrorCode, Server, type CallToolRequestParams, type CallToolResult, type InputRequiredResult, type ListToolsResult, type ServerContext, type StandardSchemaV1 } from "@modelcontextprotocol/server";
import { packageJson, RUNTIME_ROOT } from "../paths.js";
import { withRestartNote } from "../config/changed-since-start.js";
import type { Repair } from "../runtime/repair.js";
import type { OperationResult, Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import { workspaceNotTaken } from "../runtime/workspace-argument.js";
import { toExecResult } from "../text/answer.js";
import { commandLineOf } from "../text/command-line.js";
import type { NextStep } from "../runtime/answers.js";
import { presentNext, protocolFor, toToolResult } from "./present.js";
import { availableModuleFiles } from "../text/module-loader.js";
import { ConfirmInterrupt, questionDigest, type ConfirmDecision, type Confirmer } from "../runtime/confirm.js";
import { lazyStateKeys } from "../runtime/state-key.js";
import { callerName } from "./caller.js";
import { clientCanElicitForm, clientCapabilitiesOf, ConfirmRounds, TTL_SECONDS, type ConfirmRound, type RefusedState } from "./confirm-rounds.js";
import { askingConfirmer, askToConfirm, DEFAULT_CONFIRM_TIMEOUT_MS } from "./ask-confirm.js";
import { isModernRequest, relayFor } from "./call-relay.js";
import { DEFAULT_HELD_PER_CALLER, heldRequestMismatch, heldRequestOf, HeldCalls, type HeldCall } from "./held-calls.js";
import type { HandlerScope } from "./server-pool.js";
import { elicitationModes, type CallRelay, type Unaskable } from "../adapters/relay.js";
import { cancelOfRequest, signalOf, withCancellation, type Cancellation } from "../cancel.js";
import { RuntimeError } from "../runtime/errors.js";
import { boundError } from "../runtime/error-bound.js";
import { readPluginArgument } from "../runtime/argument-value.js";
import { resolveFacadeTool, type RoutingOutcome, type ExcludedTool, type ToolOwners } from "./routing.js";
import { serverInstructions } from "./instructions.js";
import { formAnswerValidator } from "./form-validator.js";
import { answerInvalidParamsFirst } from "../transports/params-check.js";
import { buildFacadeTools, EXEC_FACADE_TOOL, EXEC_FACADE_TOOL_WITH_WORKSPACE, FACADE_TOOL_KEYS, facadeToolName, HELP_TOOL, SEARCH_TOOL, type FacadeRoute, type FacadeTool } from "./tools.js";
import { readFacadeKeys, readPluginValuedKey } from "../runtime/stray-keys.js";
import { placeholderFor } from "../runtime/placeholders.js";
import { identityViewKey, mayUsePlugin, type Identity } from "../runtime/access.js";
import { positiveInt, positiveMs, TIMER_MOST } from "../positive-int.js";
import { zeroOrMoreMs } from "../setting-numbers.js";
import { durationText } from "../duration-text.js";
import { sha256Hex } from "../sha256.js";

/**
 * The MCP facade on the SDK v2 low-level Server: handlers for tools/list and tools/call that map
 * facade tools onto runtime operations and turn every outcome, errors included, into a tool
 * result of one-line JSON text, once (present.ts). It never touches I/O: a serving
 * entry (serveStdio, createMcpHandler, the legacy session table) connects a transport.
 *
 * Split in two so that the modern era's per-request factory is cheap: `createFacade` does the
 * per-process work once (tool list, routes, instructions, identity), and `facade.server(scope)`
 * only builds a Server instance and registers two closures (microseconds; bench/protocol.ts).
 */

export { SERVER_INSTRUCTIONS } from "./instructions.js";

/**
 * How long a client may keep the facade's tool list (ttlMs on 2026-07-28 `tools/list` and
 * `server/discover`): the list changes only when the fleet changes, which needs a restart of
 * this process (plugins and config are read at start), so an hour is safe; clients listening on
 * `subscriptions/listen` still hear a change at once.
 */
const FACADE_LIST_TTL_MS = 3_600_000;

/** How long the first tools/list waits for undescribed mcpServers entries to be listed (AGENT_TOOLS_DESCRIBE_WAIT_MS). */
const DESCRIBE_WAIT_MS = 5000;

export function describeWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  // Blank is unset, as the start check has it (Number("") would be 0: no wait at all).
  return zeroOrMoreMs(env.AGENT_TOOLS_DESCRIBE_WAIT_MS?.trim() ?? "") ?? DESCRIBE_WAIT_MS;
}

/**
 * A facade setting from the environment that must be a positive integer: how many calls one
 * caller may have waiting for answers (AGENT_TOOLS_HELD_CALLS_PER_CALLER; held-calls.ts says why
 * there is a share), how long a confirmation question waits (AGENT_TOOLS_CONFIRM_TIMEOUT_MS). A
 * bad value is said, not ignored.
 */
function positiveSetting(name: string, fallback: number, log: { warn(message: string): void }, { ms = false } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = ms ? positiveMs(raw) : positiveInt(raw);
  if (value) return value;
  log.warn(`${name} must be a positive integer${ms ? ` of milliseconds, ${TIMER_MOST}` : ""} (got '${raw}'); using ${fallback}`);
  return fallback;
}

/** `commands/<file>` for each text module `load` accepts: the package's own folder, read on first help and kept. */
let moduleFiles: string[] | undefined;
function textModuleFiles(): string[] {
  return (moduleFiles ??= availableModuleFiles(path.join(RUNTIME_ROOT, "commands")).map((file) => `commands/${file}`));
}


/** Which runtime session a request acts in: its loop memory, jobs and text-layer sandbox. */
export interface SessionScope {
  /** The session of search/discover/call/run_skill. */
  session(ctx: ServerContext): Session;
  /**
   * The session whose sandbox runs an agent_tools_exec command line. Absent: the same session as
   * the other tools (stdio, legacy HTTP sessions). `release` runs after the command line.
   */
  execSession?(ctx: ServerContext, args: Record<string, unknown>): Promise<ExecScope>;
  /**
   * false when the transport cannot carry a question to the user mid-call even though the client
   * declared elicitation (a 2025-era HTTP session answering in JSON): writes then need `confirm`.
   */
  canAsk?: boolean;
  /** With canAsk false, when what the client declared is not known here: why it cannot be asked, and the fix (relay.ts Unaskable). */
  unaskable?: Unaskable;
  /** The caller's team identity, when a gateway verified one: it sees only the plugins it may use. */
  identity?: Identity;
  /**
   * Closes idle sandboxes when the memory budget of all sandboxes is spent (the modern scope's
   * workspaces, text/memory-budget.ts SandboxReclaimer); one function for the scope's life.
   */
  freeSandboxMemory?: (neededBytes: number, bytesHeldBy: (holder: object) => number) => Promise<unknown>;
}

export type ExecScope = { session: Session; answer?: Record<string, unknown>; release?: () => Promise<void> } | { error: RuntimeError };

export interface Facade {
  readonly runtime: Runtime;
  /** The tool list of a caller without an identity (every plugin), as stdio lists it. */
  readonly tools: readonly FacadeTool[];
  readonly info: { name: string; version: string };
  /**
   * A Server instance bound to `scope`; cheap. `around` runs each request handler (the modern
   * HTTP leg's server pool keeps its bookkeeping there, server-pool.ts).
   */
  server(scope: SessionScope, around?: HandlerScope): Server;
  /**
   * Whether the tools/list of the callers that have no connection of their own (2026-07-28 HTTP
   * requests, whose list changes go to every `subscriptions/listen` at once) now differs from the
   * last one answered or announced to them; if so, the new lists count as announced.
   */
  requestListsChanged(): boolean;
}

/** `{plugin, ...rest}` → the plugin's prefix and the arguments the runtime operation expects. */
function pluginFromArguments(args: unknown): { prefix: string; rest: unknown } {
  if (!args || typeof args !== "object" || Array.isArray(args)) return { prefix: "", rest: args };
  const { plugin, ...rest } = args as Record<string, unknown>;
  return { prefix: typeof plugin === "string" ? plugin.trim() : "", rest };
}

/** A sentence the runtime writes lower-case (it reads inside others) that starts a `next` field. */
function capitalised(text: string): string {
  return `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}`;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The facade's Server. The modern era closes one per request, and the SDK's close hook builds a
 * "Connection closed" error for whatever was still in flight (nothing, after a request has been
 * answered); its stack trace was the largest single modern-only cost per request in a profile
 * (about 10 µs of 12). The message and code are kept; only the trace is skipped.
 */
class FacadeServer extends Server {
  /**
   * How to build this Server's FacadeCallEntry, and the entry once a fast lane asked for it.
   * Held by the Server itself, not in a module WeakMap keyed by it: such an entry refers back to
   * its key (an ephemeron), which V8's young-generation GC keeps alive, so every Server of a
   * per-request factory survived its scavenges and was promoted (docs/protocol-log.md, "The factory": it
   * went from 2–8 µs to 47–65, about a third of that GC). Built lazily: a Server no lane serves (every
   * per-request HTTP Server) pays one field.
   */
  laneEntry: FacadeCallEntry | (() => FacadeCallEntry) | undefined;
  /**
   * What this Server's client knows of its tool list: the fingerprint of the tools/list it was
   * last answered or told had changed, and how to make the fingerprint of the list it would be
   * answered now (announceToolsChanged compares the two). Undefined until its first tools/list:
   * until then a change has nothing to correct (the client's first list will have it), so no
   * tools/list_changed is sent (a client was told of a description learnt while its own first
   * tools/list was being answered).
   */
  listKnown: ListKnown | undefined;

  protected override _onclose(): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** What a client knows of its tools/list (FacadeServer.listKnown). */
interface ListKnown {
  fingerprint: string;
  now(): string;
}

/**
 * The params of a tools/call, as the SDK's Server has already checked them. Its tools/call wrapper
 * validates the whole request against the era's schema before any handler runs (a malformed one
 * gets the SDK's own -32602 answer); the plain two-argument registration then parsed the same
 * request a second time only to hand the handler a copy. Registered with this pass-through schema,
 * the handler reads the params the wrapper checked: one zod parse of every call less.
 */
const CHECKED_CALL_PARAMS: StandardSchemaV1<unknown, CallToolRequestParams> = {
  "~standard": { version: 1, vendor: "agent-tools-runtime", validate: (value) => ({ value: value as CallToolRequestParams }) },
};

const facades = new WeakMap<Runtime, Facade>();

/** What a facade Server does with a tools/call (the SDK calls it; so does a fast lane, fast-lane.ts). */
export type FacadeCallHandler = (params: Pick<CallToolRequestParams, "name" | "arguments">, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>;

export interface FacadeCallEntry {
  handle: FacadeCallHandler;
  /**
   * Whether this call may need the SDK's own request machinery midway: a 2026-07-28 call of a
   * client that can answer questions (held open across input_required rounds), or a 2025-era
   * skill that may stop for the user's confirmation after it already called the downstream.
   */
  needsSdk(name: string, args: unknown, ctx: ServerContext): boolean;
  /**
   * Whether the SDK accepted this 2026-07-28 envelope on an earlier request of the connection (its
   * schema is the SDK's). The first ask starts the keeping: the SDK's answer to that call teaches it.
   */
  acceptedEnvelope(envelope: Record<string, unknown>): boolean;
  /** The identity the Server stamps on 2026-07-28 results. */
  serverInfo: { name: string; version: string };
  /** What the Server does with a tools/list (the HTTP lane answers a modern one with it: transports/http/modern-lane.ts). */
  list(ctx: ServerContext): Promise<ListToolsResult>;
  /** The cache hint the Server gives its 2026-07-28 tools/list results. */
  listCacheHint: { ttlMs: number; cacheScope: "public" | "private" };
}

/**
 * Where `needsSdk` leaves the route it resolved for a call (a client that can show forms: whether
 * a skill may stop for the user's confirmation depends on it), on the context the lane then hands
 * that call's handler, so the name is resolved once per call. `sent` is the arguments as the call
 * carried them (absent or an object): the handler takes the resolution only for the same ones.
 */
const ROUTED = Symbol("agent-tools.routed-call");
/** A tools/call as the client sent it: the facade tool's name and its arguments. */
interface SentCall {
  tool: string;
  arguments: unknown;
}
type RoutedContext = ServerContext & { [ROUTED]?: { name: string; sent: unknown; resolved: RoutingOutcome } };

/** Envelopes remembered per Server: a client sends the same one on every request; a bound keeps a strange one from growing it. */
const MAX_ENVELOPES = 16;

/** The tools/call handler of a facade Server (undefined for any other Server), built on the first ask. */
export function facadeCallEntry(server: Server): FacadeCallEntry | undefined {
  if (!(server instanceof FacadeServer)) return undefined;
  const entry = server.laneEntry;
  return typeof entry === "function" ? (server.laneEntry = entry()) : entry;
}

/**
 * Whether a connection takes agent_tools_exec's `workspace`: only where a handle picks the shell,
 * a 2026-07-28 HTTP caller's (its scope opens workspaces). Elsewhere (stdio, a 2025-era HTTP
 * session) the connection is the workspace: the argument is neither listed nor taken.
 */
function takesWorkspace(scope: SessionScope): boolean {
  return scope.execSession !== undefined;
}

/** The facade of `runtime`, built once per runtime (the tool list depends only on the fleet). */
export function createFacade(runtime: Runtime): Facade {
  const existing = facades.get(runtime);
  if (existing) return existing;
  const pkg = packageJson();
  const info = { name: pkg.name, version: pkg.version };
  // A team gateway on Redis shares the signing key, so a spent confirmation must be spent fleet-wide.
  const kv = runtime.state.backend === "redis" ? runtime.state.kv : undefined;
  const confirmRounds = new ConfirmRounds(lazyStateKeys(), kv ? { claim: (nonce, ttlMs) => kv.setIfAbsent(`confirm-spent:${nonce}`, "1", ttlMs) } : undefined);
  const present = presentNext(runtime.facadeMode);
  /**
   * Discover answers short entries by design (README "Discovery"); a tool's description and
   * schema come from search with `detail`: a `detail` sent to discover says so.
   */
  // The caller's `plugin` is quoted only when it is a prefix this caller may use: any other text
  // (a megabyte, a credential pasted by mistake) would come back whole in the repair.
  const detailElsewhere = (prefix: unknown, known: readonly string[]): Record<string, string> => ({
    detail: `for tools' full descriptions and input schemas, call ${SEARCH_TOOL} with {"query": "…", "plugin": ${typeof prefix === "string" && known.includes(prefix) ? JSON.stringify(prefix) : '"PREFIX"'}, "detail": true}`,
  });
  /**
   * The agent_tools_exec line that makes a typed call, for the note of a cut result: with the
   * plugin's command there (`plugin-sort` for a prefix that is one of the shell's commands).
   * Imported on first use, like the text layer.
   */
  const execLine = async (step: NextStep): Promise<string> => commandLineOf(step, await (await import("../text/exec-command-name.js")).execCommandName(step.plugin));
  const heldCalls = new HeldCalls({ ttlMs: TTL_SECONDS * 1000, maxPerCaller: positiveSetting("AGENT_TOOLS_HELD_CALLS_PER_CALLER", DEFAULT_HELD_PER_CALLER, runtime.log) });
  // How long a question asked while a 2025-era call waits (its connection held) may go unanswered.
  const confirmTimeoutMs = positiveSetting("AGENT_TOOLS_CONFIRM_TIMEOUT_MS", DEFAULT_CONFIRM_TIMEOUT_MS, runtime.log, { ms: true });
  const heldRounds = new WeakMap<HeldCall<{ isError: boolean; payload: object }>, ConfirmRound>();

  /**
   * What one caller sees: a team identity only the plugins it may use (tool list, instructions,
   * help). Made once per identity and kept, so the per-request factory stays cheap.
   */
  interface View {
    tools: FacadeTool[];
    /** agent_tools_exec as this view lists it: with `workspace` only where a handle picks the shell. */
    execTool: FacadeTool;
    /** The keys agent_tools_exec reads here: its listed schema's (any other is said in `repairs`). */
    execKeys: readonly string[];
    routes: Map<string, FacadeRoute>;
    prefixes: string[];
    /** The names in this view's tools/list: the only ones an unknown tool's answer suggests. */
    listedNames: string[];
    /** The plugins of this view whose catalog in memory has a tool of a name (an unknown facade tool's answer). */
    toolOwners: ToolOwners;
    /** Why a plugin of this view does not serve a tool (its config entry keeps it out): no `next` leads there. */
    excludedTool: ExcludedTool;
    listResult: ListToolsResult;
    /** The compact list worded for a client whose user confirms writes (made on first use). */
    listResultAsked?: ListToolsResult;
    listCacheHint: { ttlMs: number; cacheScope: "public" | "private" };
    serverOptions: ConstructorParameters<typeof Server>[1];
    identity: Identity | undefined;
    /** The `toolsChanges` count the instructions in `serverOptions` were made at. */
    instructionsAt: number;
    /** Whether this is the view of callers whose scope opens workspaces (2026-07-28 HTTP requests). */
    workspaces: boolean;
    /** The fingerprints of this view's tools/list at `toolsChanges` count `at` (listFingerprint). */
    fingerprints?: { at: number } & Partial<Record<ListVariant, string>>;
    /** For 2026-07-28 HTTP callers: the fingerprint of each variant last answered or announced (requestListsChanged). */
    told?: Partial<Record<ListVariant, string>>;
  }
  /** A tools/list is worded for a client whose user confirms writes ("asked") or for one that must send `confirm` ("flagged"). */
  type ListVariant = "asked" | "flagged";
  // The instructions name each plugin with what it is about, which an mcpServers entry without a
  // description learns from its catalog (restored or listed) after the view was made: each change
  // counts here, and the next Server made for a view whose instructions are older gets new ones.
  let toolsChanges = 0;
  runtime.onToolsChanged(() => void (toolsChanges += 1));
  const instructionsOf = (view: View): ConstructorParameters<typeof Server>[1] => {
    if (view.instructionsAt === toolsChanges) return view.serverOptions;
    view.instructionsAt = toolsChanges;
    const visible = runtime.summaries().filter((s) => mayUsePlugin(view.identity, s.prefix));
    return (view.serverOptions = { ...view.serverOptions, instructions: serverInstructions(visible, runtime.facadeMode) });
  };
  const views = new Map<string, View>();
  /**
   * `workspaces`: whether the connection takes agent_tools_exec's `workspace` (a 2026-07-28 HTTP
   * caller, whose scope opens workspaces: takesWorkspace). Two views per identity at most, each
   * made once and shared by every session or request of its kind (issue #16: a session holds only
   * its own state).
   */
  const viewFor = (identity: Identity | undefined, workspaces: boolean): View => {
    const key = `${workspaces ? "workspaces" : "one shell"}\n${identityViewKey(identity)}`;
    let view = views.get(key);
    if (view) return view;
    const visible = runtime.summaries().filter((s) => mayUsePlugin(identity, s.prefix));
    const execTool = workspaces ? EXEC_FACADE_TOOL_WITH_WORKSPACE : EXEC_FACADE_TOOL;
    const { tools, routes } = buildFacadeTools(visible, { mode: runtime.facadeMode, execTool });
    const listCacheHint = { ttlMs: FACADE_LIST_TTL_MS, cacheScope: identity ? ("private" as const) : ("public" as const) };
    view = {
      tools,
      execTool,
      execKeys: Object.keys(execTool.inputSchema.properties),
      routes,
      prefixes: visible.map((s) => s.prefix),
      listedNames: tools.map((t) => t.name),
      toolOwners: (name) => runtime.toolOwners(name, identity),
      excludedTool: (prefix, name) => runtime.excludedTool(prefix, name),
      listResult: { tools } as unknown as ListToolsResult, // FacadeTool is a JSON Schema subset of Tool
      listCacheHint,
      identity,
      instructionsAt: toolsChanges,
      workspaces,
      serverOptions: {
        requestState: { verify: confirmRounds.verify },
        // One for the process instead of one per Server (per session, per modern request).
        jsonSchemaValidator: formAnswerValidator,
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions: serverInstructions(visible, runtime.facadeMode),
        cacheHints: {
          "tools/list": listCacheHint,
          "server/discover": { ttlMs: FACADE_LIST_TTL_MS, cacheScope: "public" as const },
        },
      },
    };
    if (views.size > 1_000) views.clear();
    views.set(key, view);
    return view;
  };

  /**
   * A skill's confirmation question can come after reads the skill already made (a call's comes
   * from the gate, before anything ran). Conservative: every skill of a plugin whose writes the
   * user confirms, and every skill whose plugin is not plain from the name and arguments.
   */
  const mayConfirmRun = (view: View, name: string, args: unknown, ctx: ServerContext): boolean => {
    const resolved = resolveFacadeTool(name, args ?? {}, view.routes, view.prefixes, view.listedNames, view.toolOwners, view.excludedTool, runtime.redact);
    // The lane hands this call's handler the same context: it reads this resolution instead of making it again.
    (ctx as RoutedContext)[ROUTED] = { name, sent: args, resolved };
    if ("error" in resolved || resolved.route.operation !== "run_skill") return false;
    const prefix = resolved.route.prefix ?? pluginFromArguments(resolved.args).prefix;
    return !view.prefixes.includes(prefix) || runtime.confirmPolicyOf(prefix) === "elicit";
  };

  /**
   * The arguments of help, search, discover or exec, each key the tool does not take read as what
   * it plainly means or said to be ignored (stray-keys.ts): first a key whose value is a plugin's
   * prefix, as `plugin`, then near names.
   */
  function facadeArgs(view: View, name: string, route: FacadeRoute, args: unknown, repairs: Repair[]): unknown {
    if (route.operation === "exec") return readFacadeKeys(name, view.execKeys, args, repairs);
    if (route.operation === "call" || route.operation === "run_skill") return args;
    const reads = FACADE_TOOL_KEYS[route.operation];
    const named = readPluginValuedKey(reads, args, view.prefixes, repairs);
    return readFacadeKeys(name, reads, named, repairs, route.operation === "discover" ? detailElsewhere(route.prefix ?? asRecord(named).plugin, view.prefixes) : {});
  }

  /**
   * A facade tools/call: the name resolved once, then a plugin's tool or skill (callPlugin, the
   * hot path: its promise is the answer's, with no async frame around it) or another facade tool.
   * What throws at once reaches the client as a rejection, as from an async function.
   */
  function callTool(server: Server, view: View, scope: SessionScope, name: string, sentArgs: unknown, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    try {
      // The client's answer to a held call's question resumes that call, whichever facade tool
      // carries it: checked here, before any tool runs, so no tool can run and drop the answer
      // (resumeHeld refuses it when it names another tool or other arguments).
      const refused = confirmRounds.refusedOf(ctx);
      if (refused) return Promise.resolve(refusedStateAnswer(refused));
      const resumed = confirmRounds.heldOf(ctx);
      if (resumed) return resumeHeld(server, resumed, { tool: name, arguments: sentArgs }, ctx);
      const routed = (ctx as RoutedContext)[ROUTED];
      const resolved = routed && routed.name === name && routed.sent === sentArgs ? routed.resolved : resolveFacadeTool(name, sentArgs ?? {}, view.routes, view.prefixes, view.listedNames, view.toolOwners, view.excludedTool, runtime.redact);
      if ("error" in resolved) {
        const error = resolved.error.code === "UNKNOWN_FACADE_TOOL" ? withRestartNote(resolved.error, runtime.configFile, runtime.plugins.map((p) => p.manifest.prefix), name) : resolved.error;
        // Masked, then bounded, as the pipeline's errors are: a routing answer echoes the name and
        // arguments sent (routing quotes names masked before their cut; `details.next` holding a
        // secret is left out by boundError once masked).
        return Promise.resolve(toToolResult({ isError: true, payload: { ok: false, error: boundError(runtime.redactValue(error.toPayload())) } }));
      }
      const { route, repairs } = resolved;
      // Keys a tool does not take are read as what they plainly mean, or said in `repairs` (a _call's in the pipeline).
      const args = route.operation === "call" || route.operation === "run_skill" ? resolved.args : facadeArgs(view, name, route, resolved.args, repairs);
      // The fast lane's Cancel when it took this call (no AbortSignal unless something reads one), else the SDK's signal.
      const cancellation: Cancellation = cancelOfRequest(ctx.mcpReq) ?? ctx.mcpReq.signal;
      // Whether this client shows its user the confirmation question: answers word the confirm step so.
      const userConfirms = scope.canAsk !== false && clientCanElicitForm(server, ctx);
      // The request as sent: a call held open across questions answers this one only (held-calls.ts).
      const sent: SentCall = { tool: name, arguments: sentArgs };
      if (route.operation === "call" || route.operation === "run_skill") return callPlugin(server, scope, sent, route, args, repairs, userConfirms, cancellation, ctx);
      if (route.operation === "exec") return exec(server, scope, sent, asRecord(args), repairs, userConfirms, ctx);
      return otherTool(scope, route, args, repairs, userConfirms, cancellation, ctx);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /**
   * A help, search or discover answer as a tool result, masked whole by the fleet's one
   * redactor first. These answers succeed with lines a downstream or an adapter wrote (a plugin's
   * `unavailable` reason, discover's `contextError`), which may quote a
   * credential (a token typed into a *_STORE variable, named in "the token store … does not
   * exist"); only error answers went through the redactor in the pipeline. A call's answer is
   * not masked again here: the pipeline's shape step already masked it (the hot path). An exec
   * answer is masked where it is made (exec), as a held call answers it too.
   */
  function maskedResult(outcome: Parameters<typeof toToolResult>[0]): CallToolResult {
    return toToolResult({ ...outcome, payload: runtime.redactValue(outcome.payload) });
  }

  /** help, search, exec and discover. */
  async function otherTool(scope: SessionScope, route: FacadeRoute, args: unknown, repairs: Repair[], userConfirms: boolean, cancellation: Cancellation, ctx: ServerContext): Promise<CallToolResult> {
    const opCtx = () => withCancellation({ repairs, present, userConfirms }, cancellation);
    switch (route.operation) {
      case "help": {
        // Help answers rather than refuses: a prefix that is no plugin gets a note naming the near
        // prefixes; a `plugin` that is no prefix at all (5, "") gets every plugin and a note.
        const plugin = readPluginArgument(asRecord(args).plugin);
        const help = runtime.help(plugin.ok ? plugin.prefix : undefined, scope.session(ctx));
        const unread = plugin.ok ? {} : { note: `'plugin' must be a plugin's prefix, as a string; got ${plugin.got}; every plugin is listed below` };
        const server = `${info.name} ${info.version}`;
        if (!("plugins" in help) && !("plugin" in help)) return maskedResult({ isError: false, payload: { ok: true, server, note: help.note } });
        if ("plugin" in help) {
          if (plugin.ok && plugin.prefix !== help.plugin.prefix) repairs.push({ kind: "matched-plugin-case", message: `plugin '${plugin.prefix}' was read as '${help.plugin.prefix}'` });
          // One plugin in full; the call that comes next is its discover (a JSON object, as every next),
          // or, for a plugin not configured, what configures it: its discover would only answer NOT_CONFIGURED.
          // A plugin whose adapter could not be built invites no call either: its discover would fail.
          const prefix = help.plugin.prefix;
          const { configure, broken, ...shown } = help.plugin;
          const next = configure
            ? { configure: capitalised(configure), tell: "the user: only they can change the server's setup" }
            : broken
              ? { broken: capitalised(broken), tell: "the user what `problems` says: only the plugin's author or operator can fix it; meanwhile do the work another way" }
              : runtime.facadeMode === "compact"
                ? { tool: SEARCH_TOOL, arguments: { query: placeholderFor({ type: "string" }), plugin: prefix } }
                : { tool: facadeToolName(prefix, "discover"), arguments: { query: placeholderFor({ type: "string" }) } };
          return maskedResult({ isError: false, payload: { ok: true, server, plugin: { ...shown, next }, ...(help.problems ? { problems: help.problems } : {}), ...(repairs.length ? { repairs: repairs.map((r) => r.message) } : {}) } });
        }
        return maskedResult({
          isError: false,
          payload: {
            ok: true,
            server,
            protocol: protocolFor(runtime.facadeMode, userConfirms),
            pluginHelp: `${HELP_TOOL} {"plugin":"<prefix>"} shows one plugin in full: its usage hint and every skill`,
            ...help,
            ...unread,
            // The text modules by file, as the original runtime's help named them (users look for them);
            // how agent_tools_exec works is its tools/list description's, not repeated here.
            textModules: textModuleFiles(),
            ...(repairs.length ? { repairs: repairs.map((r) => r.message) } : {}),
          },
        });
      }
      case "search":
        return maskedResult(await runtime.search(scope.session(ctx), args, opCtx()));
      case "exec":
        throw new Error("internal: facade operation 'exec' goes to exec");
      case "discover":
        return maskedResult(await runtime.discover(scope.session(ctx), route.prefix ?? "", args, opCtx()));
      case "call":
      case "run_skill":
        throw new Error(`internal: facade operation '${route.operation}' goes to callPlugin`);
    }
  }

  /**
   * A facade `_call`/`_run_skill` (or the compact ones): the plugin's tool or skill, through the
   * runtime. Callbacks rather than an async frame kept alive across every call (allocation per
   * call); its caller turns what this throws at once into a rejection.
   */
  function callPlugin(
    server: Server,
    scope: SessionScope,
    sent: SentCall,
    route: FacadeRoute,
    args: unknown,
    repairs: Repair[],
    userConfirms: boolean,
    cancellation: Cancellation,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    // Compact tools name the plugin in the arguments; per-plugin tools in their own name.
    const { prefix, rest } = route.prefix !== undefined ? { prefix: route.prefix, rest: args } : pluginFromArguments(args);
    const session = scope.session(ctx);
    const run = (relay: CallRelay, runCancellation: Cancellation, confirmer: Confirmer | undefined, userAnswered = false): Promise<OperationResult> => {
      const withConfirm = withCancellation({ repairs, present, userConfirms, relay, execLine, ...(confirmer ? { confirmer } : {}), ...(userAnswered ? { userAnswered } : {}) }, runCancellation);
      return route.operation === "call" ? runtime.call(session, prefix, rest, withConfirm) : runtime.runSkill(session, prefix, rest, withConfirm);
    };
    // A 2026-07-28 client that can answer questions: the call is held open across input_required
    // rounds, and the user is asked before a write (the policy permitting) in such a round.
    const capabilities = clientCapabilitiesOf(server, ctx);
    if (isModernRequest(ctx) && scope.canAsk !== false && (capabilities?.elicitation || capabilities?.sampling)) {
      // An answer to the facade's own confirmation that does not fit its form is refused, as a held call's are (nothing runs; the state stays good).
      const problem = userConfirms ? confirmRounds.answerProblem(ctx) : undefined;
      if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${problem}. Nothing was run; send the answer with the same requestState`);
      const round = userConfirms ? confirmRounds.round(ctx) : undefined;
      const runRound = (relay: CallRelay, runCancellation: Cancellation): Promise<OperationResult> => run(relay, runCancellation, round?.confirmer, round?.answered);
      const held = heldCalls.start(runRound, { elicit: elicitationModes(capabilities.elicitation), sample: Boolean(capabilities.sampling) }, heldRequestOf(sent.tool, sent.arguments), callerName(ctx));
      if (round) heldRounds.set(held, round);
      return stepHeld(server, held, ctx);
    }
    const relay = relayFor(server, ctx, scope.canAsk !== false, scope.unaskable);
    const done = (outcome: OperationResult): CallToolResult | Promise<CallToolResult> => {
      const sending = relay.sent();
      return sending ? sending.then(() => toToolResult(outcome)) : toToolResult(outcome);
    };
    const elicit = userConfirms ? relay.elicit : undefined;
    if (!elicit) return run(relay, cancellation, undefined).then(done);
    // A 2025-era client that can show its user a form: the gate's question is asked here, while
    // the request waits, and the call runs again with the answer (a skill's reads before its first
    // write run again, its writes once). Asked here rather than by the SDK's legacy shim, so that
    // the question has this server's deadline and its failure is this server's answer.
    const answered = new Map<string, ConfirmDecision>();
    const confirmer: Confirmer = async (question) => {
      const decision = answered.get(questionDigest(question));
      if (decision) return decision;
      throw new ConfirmInterrupt(question);
    };
    const attempt = (): Promise<CallToolResult> =>
      run(relay, cancellation, confirmer).then(done, (error: unknown) => {
        if (!(error instanceof ConfirmInterrupt) || answered.has(questionDigest(error.question))) throw error;
        return askToConfirm(elicit, error.question, signalOf(cancellation), confirmTimeoutMs).then(
          (decision) => {
            answered.set(questionDigest(error.question), decision);
            return attempt();
          },
          (failed: unknown) => {
            if (failed instanceof RuntimeError) return toToolResult({ isError: true, payload: { ok: false, error: failed.toPayload() } });
            throw failed;
          },
        );
      });
    return attempt();
  }

  /** One client round of a held call: its result, or the downstream's questions as input_required. */
  async function stepHeld(server: Server, held: HeldCall<{ isError: boolean; payload: object }>, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const sink = relayFor(server, ctx, false);
    const step = await held.step(sink, ctx.mcpReq.signal);
    await sink.sent();
    if (step.kind === "done") return toToolResult(step.value);
    if (step.kind === "failed") {
      const round = heldRounds.get(held);
      if (step.error instanceof ConfirmInterrupt && round) return round.ask(step.error);
      // The table refused to hold the call (the caller's share is full): an answer the agent can read.
      if (step.error instanceof RuntimeError && step.error.code === "TOO_MANY_QUESTIONS") return toToolResult({ isError: true, payload: { ok: false, error: step.error.toPayload() } });
      throw step.error;
    }
    return inputRequired({ inputRequests: step.requests, requestState: await confirmRounds.mintHeld(ctx, { id: held.id, round: step.round }) });
  }

  /**
   * The answer to a genuine requestState the facade will not honour (confirm-rounds.ts, RefusedState):
   * one past its life is QUESTION_EXPIRED in the facade's shape (the agent calls again); one issued to
   * another caller is -32602 in words that say so. Nothing runs either way. A forged one never gets here.
   */
  function refusedStateAnswer(refused: RefusedState["refused"]): CallToolResult {
    if (refused === "bind") {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "Invalid params: this requestState was issued to another caller (another identity or OAuth client), so it cannot carry this caller's answers; nothing was run. Call the tool again without inputResponses and requestState",
      );
    }
    const error = new RuntimeError(
      "QUESTION_EXPIRED",
      `this answer came after the question's ${Math.round(TTL_SECONDS / 60)} minutes were up (its requestState expired), so it was not used and nothing was run`,
    );
    return toToolResult({ isError: true, payload: { ok: false, error: error.toPayload() } });
  }

  async function resumeHeld(server: Server, resumed: { id: string; round: number }, sent: SentCall, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const held = heldCalls.get<{ isError: boolean; payload: object }>(resumed.id);
    // Answers resume the call that asked, not a different one riding on its state: refused, nothing run, the held call keeps waiting.
    const mismatch = held && heldRequestMismatch(held.request, heldRequestOf(sent.tool, sent.arguments));
    if (mismatch) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid params: ${mismatch}. Send the answers (inputResponses with this requestState) with the same tool name and arguments as the call that asked the question; nothing was run, and that call still waits for them`,
      );
    }
    if (!held || !held.asking(resumed.round)) {
      const error = new RuntimeError(
        "QUESTION_EXPIRED",
        held
          ? "this question was already answered (by an earlier request with the same requestState, which resumes the call and gets its result); this answer was not used"
          : `the call that asked this question is no longer waiting for its answer (nobody answered within ${durationText(heldCalls.ttlMs)}, it was cancelled, or the server restarted)`,
      );
      return toToolResult({ isError: true, payload: { ok: false, error: error.toPayload() } });
    }
    // Answers that do not fit the round are refused before it is taken: the question stays open for the right answer.
    const problem = held.answersProblem(ctx.mcpReq.inputResponses, ctx.mcpReq.droppedInputResponseKeys);
    if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${problem}. Nothing was run, and the call still waits for the answers with this requestState`);
    held.claim(resumed.round);
    held.answer(ctx.mcpReq.inputResponses);
    return stepHeld(server, held, ctx);
  }

  /**
   * agent_tools_exec. A write a command line makes is confirmed by the user as a typed `_call`'s is
   * when the client can ask (a `--confirm` in the line is the model's word, not the user's): the
   * question goes out mid-call (a 2025-era elicitation/create, or a held call's input_required
   * round for a 2026-07-28 client) and the line goes on with the answer. It is not run again
   * after the answer as a typed call is: its earlier commands would run twice.
   */
  function exec(server: Server, scope: SessionScope, sent: SentCall, args: Record<string, unknown>, repairs: Repair[], userConfirms: boolean, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const run = async (confirmer: Confirmer | undefined, signal: AbortSignal): Promise<{ isError: boolean; payload: object }> => {
      // Where the connection is the workspace, a handle would be ignored: refused, nothing runs
      // (not listed there, but a client may send one from a list made on another connection).
      const notTaken = takesWorkspace(scope) ? undefined : workspaceNotTaken(args.workspace);
      // Masked, then bounded, as every refusal: the error quotes the value sent.
      if (notTaken) return { isError: true, payload: { ok: false, error: boundError(runtime.redactValue(notTaken.toPayload())) } };
      const bound: ExecScope = scope.execSession ? await scope.execSession(ctx, args) : { session: scope.session(ctx) };
      if ("error" in bound) return { isError: true, payload: { ok: false, error: boundError(runtime.redactValue(bound.error.toPayload())) } };
      try {
        // The text layer is made on first use; just-bash itself loads with the first command line.
        // As sent: the text layer names a command that is not a string (an array of words was answered "is empty").
        const command = args.command;
        // Imported here: a session that never runs a command line never loads the text layer.
        const { textLayerFor } = await import("../text/text-layer.js");
        const layer = textLayerFor(runtime);
        if (scope.freeSandboxMemory) layer.memory.reclaimWith(scope.freeSandboxMemory);
        const answer = await layer.exec(bound.session, command, { signal, ...(confirmer ? { confirmer } : {}) });
        if (bound.answer) Object.assign(answer, bound.answer);
        if (repairs.length) Object.assign(answer, { repairs: repairs.map((r) => r.message) });
        // Masked here, so a held call's rounds (stepHeld) answer it masked too (maskedResult says why).
        return toExecResult(runtime.redactValue(answer));
      } finally {
        await bound.release?.();
      }
    };
    if (userConfirms && isModernRequest(ctx)) {
      // The held call's own expiry bounds the question: no connection waits meanwhile.
      const held = heldCalls.start((relay, signal) => run(askingThrough(relay, signal, undefined), signal), { elicit: { form: true, url: false }, sample: false }, heldRequestOf(sent.tool, sent.arguments), callerName(ctx));
      return stepHeld(server, held, ctx);
    }
    const relay = userConfirms ? relayFor(server, ctx, true) : undefined;
    return run(relay ? askingThrough(relay, ctx.mcpReq.signal, confirmTimeoutMs) : undefined, ctx.mcpReq.signal).then(toToolResult);
  }

  /** A confirmer that asks the user through `relay`, mid-call; undefined when the relay cannot ask. */
  function askingThrough(relay: CallRelay, signal: AbortSignal, timeoutMs: number | undefined): Confirmer | undefined {
    return relay.elicit ? askingConfirmer(relay.elicit, signal, timeoutMs) : undefined;
  }

  // The first listing waits a little for mcpServers entries without a description to say what
  // they are about (so a client's own tool search can tell the plugins apart); descriptions are
  // then built from the current summaries, and later changes come with tools/list_changed.
  let described: Promise<void> | undefined;
  const userConfirmsOf = (prefix: string): boolean => runtime.confirmPolicyOf(prefix) === "elicit";
  /** The tools/list answer of `view` now: built from the current summaries (per-plugin descriptions carry what a plugin is about). */
  const listAnswer = (view: View, userConfirms: boolean): ListToolsResult => {
    if (runtime.facadeMode === "compact" && !userConfirms) return view.listResult;
    const visible = runtime.summaries().filter((s) => mayUsePlugin(view.identity, s.prefix));
    if (runtime.facadeMode === "compact") {
      return (view.listResultAsked ??= { tools: buildFacadeTools(visible, { mode: "compact", execTool: view.execTool, userConfirms: userConfirmsOf }).tools } as unknown as ListToolsResult);
    }
    return { tools: buildFacadeTools(visible, { mode: runtime.facadeMode, execTool: view.execTool, ...(userConfirms ? { userConfirms: userConfirmsOf } : {}) }).tools } as unknown as ListToolsResult;
  };
  /**
   * What a client of `view` would be answered by tools/list now, as a digest of the whole list
   * (names, descriptions, schemas, annotations): a downstream's list change is announced only to a
   * client whose list it changes (a plugin's tools sit behind its _discover, so most do not). Made
   * once per view, variant and `toolsChanges` count: a change bumps the count (its listener is
   * the facade's first, registered before any announcing one), so the next asker makes it anew.
   */
  const listFingerprint = (view: View, userConfirms: boolean): string => {
    if (view.fingerprints?.at !== toolsChanges) view.fingerprints = { at: toolsChanges };
    const variant: ListVariant = userConfirms ? "asked" : "flagged";
    return (view.fingerprints[variant] ??= sha256Hex(JSON.stringify(listAnswer(view, userConfirms).tools)));
  };
  // `listed` is called with the answer built, in the same turn: a change after it is one the
  // client has not seen (announceToolsChanged).
  const listTools = async (view: View, userConfirms: boolean, listed: (userConfirms: boolean) => void): Promise<ListToolsResult> => {
    if (runtime.facadeMode !== "compact") await (described ??= runtime.describePlugins(describeWaitMs()));
    const answer = listAnswer(view, userConfirms);
    listed(userConfirms);
    if (view.workspaces) (view.told ??= {})[userConfirms ? "asked" : "flagged"] = listFingerprint(view, userConfirms);
    return answer;
  };
  const requestListsChanged = (): boolean => {
    let changed = false;
    for (const view of views.values()) {
      if (!view.workspaces || !view.told) continue;
      for (const variant of Object.keys(view.told) as ListVariant[]) {
        const now = listFingerprint(view, variant === "asked");
        if (view.told[variant] === now) continue;
        view.told[variant] = now;
        changed = true;
      }
    }
    return changed;
  };

  const facade: Facade = {
    runtime,
    tools: viewFor(undefined, false).tools,
    info,
    server(scope, around) {
      const view = viewFor(scope.identity, takesWorkspace(scope));
      const server = new FacadeServer(info, instructionsOf(view));
      const listed = (userConfirms: boolean): void => {
        const now = (): string => listFingerprint(view, userConfirms);
        server.listKnown = { fingerprint: now(), now };
      };
      const list = (ctx: ServerContext): Promise<ListToolsResult> => listTools(view, scope.canAsk !== false && clientCanElicitForm(server, ctx), listed);
      const handleList = (ctx: ServerContext): Promise<ListToolsResult> => (around ? around(ctx, list) : list(ctx));
      server.setRequestHandler("tools/list", (_request, ctx) => handleList(ctx));
      const handleCall: FacadeCallHandler = (params, ctx) => {
        const call = (c: ServerContext): Promise<CallToolResult | InputRequiredResult> => callTool(server, view, scope, params.name, params.arguments, c);
        return around ? around(ctx, call) : call(ctx);
      };
      // The envelopes of 2026-07-28 requests the SDK let through to this handler (a fast lane trusts
      // only those), kept from the first time a lane asks: a Server no lane serves pays nothing.
      let envelopes: Set<string> | undefined;
      server.setRequestHandler("tools/call", { params: CHECKED_CALL_PARAMS }, (params, ctx) => {
        const envelope = ctx.mcpReq.envelope;
        if (envelopes && envelope && envelopes.size < MAX_ENVELOPES) envelopes.add(JSON.stringify(envelope));
        return handleCall(params, ctx);
      });
      server.laneEntry = () => ({
        handle: handleCall,
        needsSdk: (name, args, ctx) => {
          if (scope.canAsk === false) return false;
          if (isModernRequest(ctx)) {
            const capabilities = clientCapabilitiesOf(server, ctx);
            return Boolean(capabilities?.elicitation || capabilities?.sampling);
          }
          return clientCanElicitForm(server, ctx) && mayConfirmRun(view, name, args, ctx);
        },
        acceptedEnvelope: (envelope) => (envelopes ??= new Set()).has(JSON.stringify(envelope)),
        serverInfo: info,
        list: handleList,
        listCacheHint: view.listCacheHint,
      });
      return server;
    },
    requestListsChanged,
  };
  facades.set(runtime, facade);
  return facade;
}

/**
 * Tell a connected server's client that the facade's tools changed, and say which plugin in a log
 * message (for clients that show server logs; the SDK filters it by the level the client set).
 * On a modern stdio connection serveStdio routes the list_changed onto `subscriptions/listen`.
 * Sent only when the tools/list this client would be answered now differs from the one it was
 * last answered or told of (FacadeServer.listKnown): in MCP the notice says that *this server's*
 * list changed, and a client lists again for it. A plugin's own tools sit behind its _discover,
 * so a downstream that renames a tool changes nothing here. Nothing is sent before the client
 * has been answered a tools/list.
 */
export function announceToolsChanged(server: Server, prefix: string): void {
  if (!server.transport) return;
  if (server instanceof FacadeServer) {
    const known = server.listKnown;
    if (!known) return;
    const now = known.now();
    if (now === known.fingerprint) return;
    known.fingerprint = now;
  }
  void server.sendToolListChanged().catch(() => undefined);
  void server.sendLoggingMessage({ level: "info", logger: "agent-tools", data: `the tools of plugin '${prefix}' changed` }).catch(() => undefined);
}

export interface FacadeServerOptions {
  runtime: Runtime;
  session: Session;
  /** See SessionScope.canAsk. */
  canAsk?: boolean;
  /** See SessionScope.unaskable. */
  unaskable?: Unaskable;
  /** Runs each request handler (a legacy HTTP session notes which of its requests are running, request-ids.ts). */
  around?: HandlerScope;
}

/** A facade server bound to one session for its whole life (stdio, a legacy HTTP session, tests). */
export function createFacadeServer({ runtime, session, canAsk, unaskable, around }: FacadeServerOptions): Server {
  const server = createFacade(runtime).server({ session: () => session, ...(canAsk === false ? { canAsk, ...(unaskable ? { unaskable } : {}) } : {}), ...(session.identity ? { identity: session.identity } : {}) }, around);
  // A legacy HTTP session's batch reaches the SDK whole: its elements with bad params are answered in one sentence too.
  answerInvalidParamsFirst(server);
  const unsubscribe = runtime.onToolsChanged((prefix) => announceToolsChanged(server, prefix));
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return server;
}

export { HELP_TOOL };
