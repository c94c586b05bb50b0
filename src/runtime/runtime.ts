import { didYouMean, suggestionsField } from "./near-names.js";
import { envSettingProblems } from "../config/env-settings.js";
import type { Adapter, Logger, ServerDescription, ToolDescriptor } from "../adapters/types.js";
import { isOnValue, waitFromEnv } from "../env-switch.js";
import { createLogger, maskedLogger } from "../log.js";
import { maskStrayStdout } from "../stdout-guard.js";
import { RUNTIME_ROOT, packageJson } from "../paths.js";
import { BUILTIN_ADAPTER_KINDS } from "../adapters/index.js";
import { describeConfigSource, secretFilesOf, type AgentToolsConfig } from "../config/config.js";
import { defaultManifests, EMBEDDED_ORIGIN } from "../config/defaults.js";
import { manifestsFromConfig } from "../config/mcp-servers.js";
import { selfReferenceNotices, selfReferences } from "../config/self-reference.js";
import { depthProblem, startsStdioMcpServer } from "../adapters/shared/runtime-depth.js";
import { discoverPluginDirs, isBundledLocation } from "../plugins/discovery.js";
import { loadPlugins, type DeclarativeAdapterFactory, type LoadedPlugin, type PluginLoadFailure, type PluginSource, type ReplacedPlugin } from "../plugins/loader.js";
import { dropBrokenRelatedLinks, findBrokenRelatedLinks, type BrokenRelatedLink } from "../plugins/related.js";
import { configureAdvice, describeMissing, missingDetails, missingProgramHint } from "../plugins/requirements.js";
import { excludedSentence, withheldName, withheldToolError } from "../plugins/tool-filter.js";
import type { Skill } from "../plugins/skills.js";
import { writeReason } from "./write-reason.js";
import type { CatalogEntry, DiscoverAnswer, NextStep, OperationResult } from "./answers.js";
import { createCatalog, DEFAULT_LISTING_CONCURRENCY, documentsFor, type Catalog } from "./catalog.js";
import { followToolsChanges } from "./tools-change.js";
import { catalogKey } from "./catalog-cache/key.js";
import { catalogStoreFromEnv, type CatalogStore } from "./catalog-cache/store.js";
import { startCatalogUpkeep, watchAdapterUse } from "./catalog-upkeep.js";
import { hasGenericDescription, pluginAbout } from "./plugin-about.js";
import { createDiscoverContexts } from "./discover-context.js";
import { describeThrown, fromThrown, RuntimeError } from "../errors.js";
import type { GatePolicy } from "./gate.js";
import { createLoopBreaker } from "./loop-breaker.js";
import { createPipeline, frame, type OperationContext, type ReadyPlugin } from "./pipeline.js";
import { describedSkillParams, isSchemaLike, relatedOf } from "./skill-answer.js";
import { declaredPropertyNames, requiredPropertyNames } from "../schema-branches.js";
import type { Repair } from "./repair.js";
import { LIMIT_RULE, MAX_LIMIT, readLimit } from "./limit-argument.js";
import { describeArgumentValue, echoed, readPluginArgument } from "./argument-value.js";
import { DeadlineError, shapeResult, withDeadline } from "./result.js";
import { createToolIndex, DEFAULT_SEARCH_ENGINE, isSearchEngineName, SEARCH_ENGINES, type SearchEngineName, type ToolIndex } from "./search/index.js";
import { resolveFacadeMode, type FacadeMode } from "./facade-mode.js";
import { argumentSkeleton, echoQuery, ENGLISH_INDEX, fitEntriesToBudget, searchAnswer, SEARCH_DESCRIPTION_CHARS, SEARCH_TOKEN_BUDGET, withCorrections, type SearchArgs } from "./search-answer.js";
import { oneLine, oneLineReason } from "./one-line.js";
import { commandSettingOf, type PluginManifest } from "../plugins/manifest.js";
import { createSession, type Session } from "./session.js";
import { jobStoreFor } from "./jobs.js";
import { mayUsePlugin, seesWholeFleet, usablePrefixes, type Identity } from "./access.js";
import type { CallObserver, Tracing } from "./observer.js";
import { createRedactor } from "../adapters/shared/redact.js";
import { hostSecrets, manifestSecrets } from "./redaction.js";
import { importTimeoutFromEnv } from "../plugins/import-deadline.js";
import { pickRanked, type Ranked } from "./ranked-window.js";
import { setupLine } from "./unconfigured-hits.js";
import { fleetProblems } from "./problems.js";
import { pluginNamesThatCouldLoad } from "./known-plugins.js";
import { withRestartNote } from "../config/changed-since-start.js";
import { embeddedDropped, missingFolders, namedPluginDirs, notConfiguredLine, protectiveDefaultsLine, unknownDisabled } from "./startup-notices.js";
import { pluginlessFolders } from "./pluginless-folders.js";
import { createSharedState, type SharedState } from "../state/index.js";
import { createAuditObserver } from "./audit.js";
import { identityWrites } from "./gate.js";
import { confirmWording, isConfirmPolicy, type ConfirmPolicy } from "./confirm.js";
import { closestNames, closestPrefixes, foldedMatch } from "./similarity.js";
import { sameNameIn, type NamedTarget } from "./misdirected.js";
import { readQuery } from "./query-argument.js";
import { isPlainObject } from "../plain-object.js";
import { asPromise } from "../as-promise.js";
import { positiveInt, positiveMs } from "../positive-int.js";

export type { OperationContext } from "./pipeline.js";
export type { OperationResult } from "./answers.js";

/**
 * The persistent runtime: the plugin registry, the catalog and its search index, and the three
 * operations every front end (MCP facade, text layer) goes through — discover, call, run skill —
 * each with repair, loop check, validation, the confirm gate and error codes in one place.
 */

export interface RuntimeOptions {
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  /** Plugin folders to load instead of the discovery locations. */
  pluginDirs?: string[];
  /** Extra folders scanned in addition to the discovery locations (config `plugins.dirs`). */
  extraPluginDirs?: string[];
  /** Do not load the runtime's bundled plugins nor the embedded default servers (AGENT_TOOLS_NO_BUNDLED_PLUGINS=1). */
  skipBundled?: boolean;
  /** The config file's content: its mcpServers become plugins, plugins.dirs/disable apply. */
  config?: AgentToolsConfig;
  cwd?: string;
  adapterKinds?: Readonly<Record<string, DeclarativeAdapterFactory>>;
  /** Per-call deadline for adapter calls and skills; default 40 s (AGENT_TOOLS_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
  /**
   * Deadline of each import of plugin code (a skill file, a module adapter) while loading; past it
   * the file is a problem and the rest loads. Default 10 s (AGENT_TOOLS_IMPORT_TIMEOUT_MS).
   */
  importTimeoutMs?: number;
  /** Largest result, in characters of JSON, before it is cut; default 100,000. */
  maxResultChars?: number;
  /** Plugins made in code (e.g. search-bench's in-memory catalogs), loaded instead of any discovery. */
  manifests?: PluginManifest[];
  /** The ranking engine; default hybrid (README "Semantic search"; the measurements: docs/search-log.md). */
  searchEngine?: SearchEngineName;
  /**
   * How long a search waits for the semantic engine (model load, catalog and query embedding)
   * before answering from BM25F alone (the work goes on in the background). Default 250 ms;
   * Infinity waits until done.
   */
  semanticWaitMs?: number;
  /**
   * How long a search waits for the sentence model to load (seconds of CPU) before answering from
   * BM25F alone while it loads in the background. Default: 0 when catalogs persist (a warm start
   * answers its first search at once), else until loaded (a cold start waits for listings anyway);
   * AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS sets it; Infinity waits. `semanticWaitMs` caps it.
   */
  semanticModelWaitMs?: number;
  /** Facade shape; else AGENT_TOOLS_FACADE, else config facade.mode, else per-plugin. */
  facadeMode?: FacadeMode;
  /** Shared state (jobs, tokens, counters, audit); default from AGENT_TOOLS_REDIS_URL / config team, else memory. */
  state?: SharedState;
  /** Told of every discover, search, call and skill run once it has its outcome (metrics, audit); awaited before the answer. */
  observers?: CallObserver[];
  /** Traces of every operation and of each pipeline step (the gateway's OpenTelemetry, when configured); default none. */
  tracing?: Tracing;
  /**
   * Where plugin catalogs persist between runs: a store, or false for none. Default: the file
   * store in the user's cache folder named by `env` (AGENT_TOOLS_CACHE_DIR, XDG_CACHE_HOME, HOME;
   * AGENT_TOOLS_CATALOG_CACHE=off disables it); none for in-code `manifests`.
   */
  catalogCache?: CatalogStore | false;
  /**
   * Access policies, run after the runtime's own identity policy on every call (as soon as the
   * target is known) and every step a skill takes; each throws to refuse (see gate.ts).
   */
  accessPolicies?: GatePolicy[];
  /** The loop breaker's clock and window (tests inject a clock). */
  clock?: () => number;
  loopWindowMs?: number;
}


/** Where the whole fleet's list is, said by help's answer to a prefix that names no plugin. */
const HELP_WITHOUT_PLUGIN = "agent_tools_help without 'plugin' lists every plugin";

export interface PluginSummary {
  prefix: string;
  name: string;
  description: string;
  discoverHint?: string;
  /** What a generic mcpServers entry is about, once its server was listed (plugin-about.ts). */
  about?: string;
  configured: boolean;
  missing?: string;
  requireConfirm: boolean;
  skills: string[];
}

/**
 * What `help` knows of the fleet; the facade adds its own protocol (tool names are its business).
 * A plugin that is not configured is its prefix and status only (the status says what to set):
 * its description and skills cannot be acted on until the user configures it, and cost tokens on
 * every help answer; help({plugin}) still shows it in full.
 */
export interface HelpReport {
  /** A `plugin` argument that could not be read (not a string): said, and every plugin listed. */
  note?: string;
  plugins: Array<{ prefix: string; status: string; description?: string; confirm?: string; skills?: string[] }>;
  /** Bundled plugins the user's own replaced. */
  notices?: string[];
  problems?: string[];
}

/**
 * help({plugin}) with a prefix that names no plugin the caller may use: a note naming the near
 * prefixes only (the whole fleet's list is one help call away, and was ~1,100 tokens to resend).
 */
export interface UnknownPluginHelp {
  note: string;
}

/** One plugin in full (help({plugin})): its whole hint and every skill. */
export interface PluginHelp {
  plugin: {
    prefix: string;
    name: string;
    description: string;
    status: string;
    /** Not configured: what makes it so (its calls, discover included, answer NOT_CONFIGURED until then). */
    configure?: string;
    /** Its adapter (built on first use) could not be built the last time: who fixes it; no call can work until then. */
    broken?: string;
    hint?: string;
    confirm?: string;
    notice?: string;
    skills?: Array<{ name: string; description: string; params?: string; related?: unknown[] }>;
  };
  /** The plugin's own problems (problems.ts with `only`): its tool list mended, a broken related link. */
  problems?: string[];
}

/** A plugin made in code for one caller (a text module's server), reached only through the object. */
export interface MemoryPluginSpec {
  prefix: string;
  name: string;
  description: string;
  adapter: Adapter;
  requireConfirm?: boolean;
  readonlyTools?: string[];
  /** false: a tool's own readOnlyHint does not lift the gate (the server is not trusted to say). */
  trustReadOnlyHints?: boolean;
}

export interface Runtime {
  readonly plugins: readonly LoadedPlugin[];
  readonly failures: readonly PluginLoadFailure[];
  /** Bundled plugins left out for a user plugin or config entry with the same prefix. */
  readonly replaced: readonly ReplacedPlugin[];
  readonly brokenLinks: readonly BrokenRelatedLink[];
  /**
   * What is wrong with the fleet, one sentence each (problems.ts): missing plugin folders,
   * `plugins.disable` names that match nothing, load failures, broken related links. With a
   * session, only what its identity may see; validate, help and status all show this list. With
   * `only`, one plugin's own (per-plugin help).
   */
  problems(session?: Session, only?: string): string[];
  /**
   * What the user should know but need not fix, one sentence each: a bundled plugin their own
   * replaced, a config entry that starts this runtime itself and was skipped (a client's file used
   * as is lists agent-tools on purpose). Shown by validate and help, to a caller that sees the
   * whole fleet only (they name host paths and other plugins).
   */
  notices(session?: Session): string[];
  readonly index: ToolIndex;
  readonly log: Logger;
  /**
   * `text` with every credential the runtime knows masked (its one redactor: the host's secrets,
   * each plugin's, what adapters learned since). For text that does not leave through an
   * operation's result shaping, such as the text layer's reports of modules that failed to load.
   */
  redact(text: string): string;
  /**
   * `value` with every string and key masked by the same redactor: for an answer made before any
   * operation, such as a facade routing error (it quotes the name and carries the arguments sent).
   */
  redactValue<T>(value: T): T;
  /** How the facade presents the fleet: a trio per plugin, or five fixed tools. */
  readonly facadeMode: FacadeMode;
  /** The config file this runtime was built from (absolute), if any: it may hold credentials. */
  readonly configFile: string | undefined;
  /** The config file and the env files it names (absolute): what the /workdir mount hides beyond its rule. */
  readonly secretFiles: readonly string[];
  /** Which config file was read and how it was found, or where none was found: for help and status. */
  readonly configSource: string;
  plugin(prefix: string): LoadedPlugin | undefined;
  summaries(): PluginSummary[];
  /** A plugin's confirm policy: "elicit" (the user is asked when the client can) or "flag" (the model's `confirm: true`). */
  confirmPolicyOf(prefix: string): ConfirmPolicy;
  /**
   * List the configured mcpServers entries that have no description of their own, so summaries
   * can say what each is about; waits at most `waitMs` (the rest finish in the background).
   */
  describePlugins(waitMs: number): Promise<void>;
  /**
   * Settles once the catalogs kept in the catalog cache are read back (at once without the cache),
   * or after `waitMs`: what mcpServers entries are about is known from them (the server instructions say it).
   */
  catalogsRestored(waitMs: number): Promise<void>;
  /** Shared state of the fleet (memory or Redis). */
  readonly state: SharedState;
  /** Catalog cache counts since start (metrics). */
  catalogStats(): { hits: number; misses: number };
  createSession(id?: string, identity?: Identity): Session;
  /**
   * Every plugin; with a prefix, that plugin in full (whole discoverHint, each skill). With a
   * session, only the plugins its identity may use.
   */
  help(prefix?: string, session?: Session): HelpReport | PluginHelp | UnknownPluginHelp;
  discover(session: Session, target: string | LoadedPlugin, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** One ranked answer across every plugin ({query, limit?, plugin?, detail?}); agent_tools_search and search-bench use it. */
  search(session: Session, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** Run one tool through the pipeline (pipeline.ts). `target` is a prefix, or an in-memory plugin. */
  call(session: Session, target: string | LoadedPlugin, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  runSkill(session: Session, target: string | LoadedPlugin, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** One tool's description and input schema, and whether a call of it needs confirmation. */
  describe(session: Session, target: string | LoadedPlugin, toolName: string, ctx?: OperationContext): Promise<OperationResult>;
  /** An in-memory plugin: not listed in help, tools/list or search; its calls take the same pipeline. */
  memoryPlugin(spec: MemoryPluginSpec): LoadedPlugin;
  /** Called with the plugin's prefix whenever a plugin's tool list changes. Returns an unsubscribe. */
  onToolsChanged(listener: (prefix: string) => void): () => void;
  /**
   * The plugins (configured, usable by `identity`) whose catalog in memory has a tool `name`
   * names (case and separators aside), with its name there. Synchronous: no catalog is listed
   * for it, so a plugin not listed yet is not looked at (an unknown facade tool's answer, routing.ts).
   */
  toolOwners(name: string, identity?: Identity): Array<{ plugin: string; name: string }>;
  /**
   * When the config entry of plugin `prefix` keeps out the tool `name` names (includeTools,
   * excludeTools, disabledTools): the sentence that says so, naming the field and the file; else
   * undefined. Synchronous, like toolOwners: an answer must not lead a caller to a tool it cannot call.
   */
  excludedTool(prefix: string, name: string): string | undefined;
  close(): Promise<void>;
}

/** Well under the 60 s most MCP clients wait (the SDK default), so our own error, with its hint, arrives first. */
const DEFAULT_TIMEOUT_MS = 40_000;
/** The longest the sentence model's background load waits for the start-up listings (hybrid.ts `loadAfter`). */
const MODEL_HELD_BY_LISTING_MS = 10_000;
const DEFAULT_MAX_RESULT_CHARS = 100_000;
const DEFAULT_LIMIT = 10;
/** Discover shows fewer entries by default than search: one plugin, and the next call said once. */
const DEFAULT_DISCOVER_LIMIT = 5;
const MAX_OPTIONAL_NAMES = 3;
/** Characters of a skill's argument sentence shown in discover (its own plugin) and in search (across plugins). */
const SKILL_ARGS_CHARS = 200;
const SEARCH_SKILL_ARGS_CHARS = 100;
/** Tokens (o200k) a discover answer may take at the default limit, whatever the catalog (fitted like search's). */
export const DISCOVER_TOKEN_BUDGET = 450;
/** An explicit larger `limit` asked for more: the budget grows by this much per entry asked for. */
const DISCOVER_TOKENS_PER_ENTRY = 90;

export function discoverBudget(limit: number): number {
  return Math.max(DISCOVER_TOKEN_BUDGET, limit * DISCOVER_TOKENS_PER_ENTRY);
}

/** How long a search (or an answer that looks for a name in other plugins) waits for catalogs not yet listed before it answers without them. */
const SEARCH_LISTING_WAIT_MS = 3000;
/** The longest facade tool name looked for among the plugins' tools (toolOwners). */
const MAX_OWNED_NAME_CHARS = 200;

/** Wait for `work`, but no longer than `ms`: what is not in by then is let finish in the background. */
async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
/**
 * A tool's input schema as an answer shows it: without its `$schema` URI (~12 tokens a hit, and
 * no help in writing the arguments).
 */
function shownSchema(schema: ToolDescriptor["inputSchema"]): ToolDescriptor["inputSchema"] {
  if (!("$schema" in schema)) return schema;
  const { $schema: _dialect, ...shown } = schema;
  return shown as ToolDescriptor["inputSchema"];
}

/** Characters of each server's line in a search answer's `servers`. */
const SERVER_ABOUT_CHARS = 60;
/**
 * A search waits at most this for the semantic side (catalog or query embedding, and the model
 * loading in its worker when the model's own wait is `forever`) and otherwise answers from BM25F
 * while that goes on: BM25F can always answer, and under load a model load of seconds must not
 * hold a call. AGENT_TOOLS_SEMANTIC_WAIT_MS sets another (ms, or `forever`);
 * `createRuntime({semanticWaitMs})` wins over both. The model's own wait
 * (AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS) is 0 with the catalog cache on: no search waits for it then.
 */
const SEMANTIC_WAIT_MS = 250;

/**
 * A search or discover query is cut here: the answer echoes it, and each of its characters is
 * work for the sentence model. 1,000 rather than 500 (5 December, session 10): a task of several
 * steps said in full runs past 500 characters (129 of Seal-Tools' 700 queries), and the steps cut
 * off were never looked for; Seal-Tools' R@5 went 93.7% → 94.7% (C@10 87.7% → 91.3%) with nothing
 * else changed (every dev-set query is shorter; docs/search-log.md, "Long queries"). Cutting at
 * the last sentence end within 500 instead lost 2.3 points: a step's first words still find it.
 */
export const MAX_QUERY_CHARS = 1000;

/**
 * A discover or search `query` as query-argument.ts reads it, cut to MAX_QUERY_CHARS, each change
 * said in `repairs`; `refused` when it cannot be read (the operation's frame throws it, so the
 * refusal is an answer like any other). `otherwise`: what the operation does without a query.
 */
function queryOf(raw: unknown, repairs: Repair[], otherwise: string): { query: string; refused?: RuntimeError } {
  const read = readQuery(raw);
  if (!read.ok) {
    return {
      query: "",
      refused: new RuntimeError("ARG_VALIDATION_FAILED", `'query' must be a few words as a string, e.g. {"query": "list open issues"}; got ${read.got}. Nothing was searched; ${otherwise}`, {
        errors: [{ path: "/query", message: "must be a string" }],
      }),
    };
  }
  for (const message of read.repairs) repairs.push({ kind: "read-query", message });
  const query = read.query;
  if (query.length <= MAX_QUERY_CHARS) return { query };
  repairs.push({ kind: "shortened-query", message: `the query was ${query.length} characters; its first ${MAX_QUERY_CHARS} were used` });
  return { query: query.slice(0, MAX_QUERY_CHARS) };
}

/** The `repairs` field the frame adds to an answer (pipeline.ts `frame`), for a budget to count what is sent. */
function repairsSent(repairs: readonly Repair[]): { repairs?: string[] } | undefined {
  return repairs.length ? { repairs: repairs.map((r) => r.message) } : undefined;
}

/** A discover or search `limit`: repaired as limit-argument.ts says (and named in `repairs`), else refused naming the value. */
function limitOf(raw: unknown, fallback: number, repairs: Repair[]): number {
  const read = readLimit(raw);
  if (!read.ok) {
    throw new RuntimeError("ARG_VALIDATION_FAILED", `'limit' must be ${LIMIT_RULE}; got ${read.got}. Send e.g. {"limit": 5}, or leave it out for the default ${fallback}`, {
      errors: [{ path: "/limit", message: `must be ${LIMIT_RULE}` }],
    });
  }
  for (const message of read.repairs) repairs.push({ kind: "read-limit", message });
  return read.limit ?? fallback;
}

/**
 * Search's `plugin`: one plugin's prefix, or not given (`null` too: clients fill unset optional
 * fields with it) to search every plugin. Anything else (5, "", ["fx"]) is refused naming the
 * value, never read as "every plugin" without a word.
 */
function searchPluginOf(raw: unknown): string | undefined {
  const read = readPluginArgument(raw);
  if (read.ok) return read.prefix;
  throw new RuntimeError(
    "ARG_VALIDATION_FAILED",
    `'plugin' must be one plugin's prefix, as a string; got ${read.got}. Send e.g. {"query": "list issues", "plugin": "<prefix>"} (help and search hits show each prefix), or leave 'plugin' out to search every plugin`,
    { errors: [{ path: "/plugin", message: "must be a non-empty string (a plugin's prefix)" }] },
  );
}

/**
 * Search's `detail`: `true` or `false`, or not given (`null` too). The strings "true" and "false"
 * are what models send for a boolean most often: read as the boolean and named in `repairs`, like
 * a numeral-string limit. Anything else (1, "yes", {}) is refused naming the value, never read as
 * `false` without a word.
 */
function detailOf(raw: unknown, repairs: Repair[]): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === "boolean") return raw;
  const word = typeof raw === "string" ? raw.trim().toLowerCase() : undefined;
  if (word === "true" || word === "false") {
    repairs.push({ kind: "read-detail", message: `'detail' was the string ${JSON.stringify(raw)}; it was read as the boolean ${word}` });
    return word === "true";
  }
  throw new RuntimeError(
    "ARG_VALIDATION_FAILED",
    `'detail' must be true or false; got ${describeArgumentValue(raw)}. Send {"detail": true} to add each hit's input schema, or leave it out for the short answer`,
    { errors: [{ path: "/detail", message: "must be a boolean" }] },
  );
}

/** "owner*, repo*, page, perPage +2": required first (starred), then a few optional names. */
/**
 * A schema's parameters as the validator reads them: names under a top-level `$ref`, `allOf` or
 * union count (schema-branches.ts); required ones are those every value must have.
 */
function declaredParams(schema: Record<string, unknown>): { properties: string[]; required: Set<string> } {
  return { properties: declaredPropertyNames(schema, schema) ?? [], required: new Set(requiredPropertyNames(schema, schema)) };
}

function paramSummary(schema: Record<string, unknown>): string {
  const { properties, required } = declaredParams(schema);
  const optional = properties.filter((p) => !required.has(p));
  const shown = [...properties.filter((p) => required.has(p)).map((p) => `${p}*`), ...optional.slice(0, MAX_OPTIONAL_NAMES)];
  return optional.length > MAX_OPTIONAL_NAMES ? `${shown.join(", ")} +${optional.length - MAX_OPTIONAL_NAMES}` : shown.join(", ");
}

function optionalParams(schema: Record<string, unknown>): string {
  const { properties, required } = declaredParams(schema);
  const optional = properties.filter((p) => !required.has(p));
  // A few names are enough to know a tool fits; the schema (detail: true) has the rest.
  return optional.length > MAX_OPTIONAL_NAMES ? `${optional.slice(0, MAX_OPTIONAL_NAMES).join(", ")} +${optional.length - MAX_OPTIONAL_NAMES}` : optional.join(", ");
}

function skillParamSummary(skill: Skill, maxChars: number): string {
  const args = skill.meta.args;
  if (!args) return "";
  if (isSchemaLike(args)) return paramSummary(args);
  return describedSkillParams(args, maxChars);
}

/** `{params}` when a skill's argument text says something (help leaves the field out otherwise). */
function paramsOf(summary: string): { params?: string } {
  return summary ? { params: summary } : {};
}

/** Setting problems this process has said: a process that makes more than one runtime says each once. */
const saidSettingProblems = new Set<string>();

function warnOnce(messages: readonly string[], log: Logger): void {
  for (const message of messages) {
    if (saidSettingProblems.has(message)) continue;
    saidSettingProblems.add(message);
    log.warn(message);
  }
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  // One redactor for the whole fleet: adapters add what they learn at run time, and every answer
  // leaves through it (see redaction.ts).
  // It knows the host's credentials before any plugin code loads, and each plugin's as its
  // manifest is read (loader.ts): a plugin that fails to load may put them in its error.
  const redactor = createRedactor(hostSecrets(env));
  // Every line logged through it too: plugins are handed this logger (AdapterOptions.log, a call's
  // context.log), and print what their code read.
  const log = maskedLogger(options.log ?? createLogger(), redactor);
  // Plugin code's console.log, sent to stderr when stdout is the protocol's (stdout-guard.ts).
  const unmaskStrayStdout = maskStrayStdout((text) => redactor.redact(text));
  const settingProblems = envSettingProblems(env);
  warnOnce(settingProblems.filter((p) => !p.saidByReader).map((p) => p.message), log);
  const timeoutMs = options.callTimeoutMs ?? positiveMs(env.AGENT_TOOLS_CALL_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
  const maxResultChars = options.maxResultChars ?? positiveInt(env.AGENT_TOOLS_MAX_RESULT_CHARS) ?? DEFAULT_MAX_RESULT_CHARS;

  const ownState = options.state === undefined;
  const state = options.state ?? (await createSharedState({ env, log, ...(options.config?.team ? { settings: options.config.team } : {}) }));
  // Without observers given (stdio, embedders), writes are still audited wherever the state keeps its log.
  const observers = options.observers ?? (state.audit ? [createAuditObserver({ audit: state.audit, instanceId: state.instanceId, log })] : []);
  // A failed job's error is masked (and bounded) when stored, as an answer's is when sent.
  const jobOptions = { mask: (text: string) => redactor.redact(text), redact: (value: unknown) => redactor.redactValue(value) };
  // Team mode: an identity's jobs are its own across sessions and instances; else per session.
  const jobsOf = (session: Session, prefix: string) =>
    jobStoreFor(session, prefix, jobOptions, { records: state.jobs, instanceId: state.instanceId, shared: state.backend === "redis", ...(state.stateLoss ? { stateLoss: state.stateLoss } : {}), ...(session.identity ? { scope: `identity:${session.identity.name}` } : {}) });

  const cwd = options.cwd ?? process.cwd();
  const facadeMode = options.facadeMode ?? resolveFacadeMode(env, options.config, log);
  const skipBundled = options.skipBundled ?? isOnValue(env.AGENT_TOOLS_NO_BUNDLED_PLUGINS);
  const confirmFromEnv = env.AGENT_TOOLS_CONFIRM?.trim();
  if (confirmFromEnv && !isConfirmPolicy(confirmFromEnv)) log.warn(`AGENT_TOOLS_CONFIRM='${confirmFromEnv}' is not a confirm policy; use elicit or flag. Using elicit.`);
  const defaultConfirmPolicy: ConfirmPolicy = options.config?.confirm ?? (isConfirmPolicy(confirmFromEnv) ? confirmFromEnv : "elicit");
  const config = options.config;
  const dirs = options.manifests
    ? []
    : options.pluginDirs ??
    discoverPluginDirs({
      runtimeRoot: RUNTIME_ROOT,
      cwd,
      pluginsDirEnv: env.AGENT_TOOLS_PLUGINS_DIR,
      extraDirs: [...(options.extraPluginDirs ?? []), ...(config?.plugins.dirs ?? [])],
      skipBundled,
    });
  // Precedence when prefixes collide: the user's plugin folders, then config entries, then the
  // bundled plugins, then the embedded default. A bundled plugin is replaced (one notice), the
  // user's own collisions are errors.
  const isBundledDir = (dir: string) => isBundledLocation(dir, RUNTIME_ROOT);
  const sources: PluginSource[] = dirs.filter((d) => !isBundledDir(d));
  // Entries that start this runtime itself, decided once: left out here and said in the notices below.
  const skippedSelf = config && !options.manifests ? selfReferences(config, env) : [];
  if (options.manifests) sources.push(...options.manifests);
  else if (config) sources.push(...manifestsFromConfig(config, new Set(skippedSelf.map((s) => s.key)), env));
  sources.push(...dirs.filter(isBundledDir));
  if (!options.manifests && (!config?.file || config.plugins.embedded === true) && !skipBundled && !options.pluginDirs) sources.push(...defaultManifests(cwd, env, secretFilesOf(config)));
  const redact = (value: unknown): unknown => redactor.redactValue(value);
  // A team gateway keeps catalogs in its shared state (unless AGENT_TOOLS_CATALOG_CACHE=off turns caching off).
  const fromEnv = options.manifests ? undefined : catalogStoreFromEnv(env, (message) => log.warn(message));
  const store = options.catalogCache ?? (fromEnv && state.catalogs ? state.catalogs : fromEnv);
  const loadOptions = {
    env,
    log,
    redactor,
    secretsOf: (manifest: PluginManifest) => manifestSecrets(manifest, env),
    importTimeoutMs: options.importTimeoutMs ?? importTimeoutFromEnv(env),
    disable: config?.plugins.disable ?? [],
    adapterKinds: { ...BUILTIN_ADAPTER_KINDS, ...(options.adapterKinds ?? {}) },
    // Only state that other processes see is worth keeping tokens in: an in-memory one would
    // shadow the token store file that this host's other runtimes refresh under its lock.
    ...(state.backend === "redis" ? { shared: state } : {}),
    // With catalogs that persist, an adapter waits for its first use (deferred-adapter.ts):
    // tools/list, search and discover answer from the stored catalog, and a catalog not stored
    // yet is listed in the background a second after start. So a start loads no adapter code.
    deferAdapter: () => Boolean(store),
    // The built adapter replaces the stand-in: watch its first calls as the stand-in's were.
    onAdapterBuilt: (plugin: LoadedPlugin) => watchUse(plugin),
    isBundled: (manifest: PluginManifest) => manifest.file === EMBEDDED_ORIGIN || (manifest.form !== "config" && isBundledDir(manifest.dir)),
  };
  const { plugins, failures, replaced, knownNames } = await loadPlugins(sources, loadOptions);
  // Given manifests or folders, the caller chose the fleet: the named folders are not checked.
  const namedDirs = options.manifests || options.pluginDirs ? [] : namedPluginDirs(env.AGENT_TOOLS_PLUGINS_DIR, config?.plugins.dirs ?? [], config?.file);
  const pluginless = pluginlessFolders(namedDirs);
  const missingDirs = [...missingFolders(namedDirs), ...pluginless.problems];
  // Given manifests or folders, the caller chose the fleet: like missing folders, not checked.
  // Else an entry not among this run's names is checked against every plugin that could load.
  const disable = options.manifests || options.pluginDirs ? [] : (config?.plugins.disable ?? []);
  const disableTypos = disable.every((name) => knownNames.includes(name))
    ? []
    : unknownDisabled(
        disable,
        await pluginNamesThatCouldLoad({ loaded: knownNames, runtimeRoot: RUNTIME_ROOT, cwd, pluginsDirEnv: env.AGENT_TOOLS_PLUGINS_DIR, extraDirs: [...(options.extraPluginDirs ?? []), ...(config?.plugins.dirs ?? [])], config }),
        config?.file,
        // Folders whose manifest did not load: they have no name to match.
        failures.filter((f) => f.name === undefined && f.prefix === undefined).map((f) => f.location),
      );
  // Entries that start this runtime itself are skipped with a notice (a client's file used as is
  // lists agent-tools on purpose, so validate stays ok); a runtime too deep in a chain of runtimes
  // to start MCP servers (runtime-depth.ts) runs a fleet other than the one meant: a problem.
  const selfReferenceLines = config ? selfReferenceNotices(config, skippedSelf) : [];
  const problem = depthProblem(env);
  const depthProblems = problem && plugins.some(({ manifest: { adapter } }) => startsStdioMcpServer(adapter)) ? [problem] : [];
  // A wrong AGENT_TOOLS_FS_ROOT or AGENT_TOOLS_MEMORY_FILE (config/defaults.ts), for the embedded plugins that loaded (not disabled or replaced).
  const embeddedProblems = plugins.flatMap(({ manifest }) => (manifest.setBy?.problem ? [manifest.setBy.problem] : []));
  for (const notice of [
    ...(config?.notices ?? []),
    ...selfReferenceLines,
    ...depthProblems,
    ...embeddedProblems,
    ...missingDirs,
    ...pluginless.notices,
    ...disableTypos,
    ...(skipBundled || options.manifests ? [] : embeddedDropped(config)),
  ]) log.warn(notice);
  const idleLine = notConfiguredLine(plugins);
  if (idleLine) log.info(idleLine);
  // The embedded memory plugin's cap and lock are its documented own: only the user's entries are said.
  const protectedLine = protectiveDefaultsLine(plugins.filter(({ manifest }) => manifest.file !== EMBEDDED_ORIGIN));
  if (protectedLine) log.info(protectedLine);
  // A bundled skill's link into a bundled plugin the user replaced points at nothing the user
  // chose: it is dropped (the user's own links are checked as written).
  const replacedPrefixes = new Set(replaced.map((r) => r.prefix));
  for (const plugin of plugins.filter((p) => loadOptions.isBundled(p.manifest))) {
    for (const skill of plugin.skills) {
      skill.meta.related = (skill.meta.related ?? []).filter((link) => {
        const [prefix, name] = link.target.split(":");
        return !(prefix && replacedPrefixes.has(prefix) && !plugins.some((p) => p.manifest.prefix === prefix && p.skills.some((s) => s.name === name)));
      });
    }
  }
  const brokenLinks = findBrokenRelatedLinks(plugins);
  for (const link of brokenLinks) log.warn(`skill ${link.from}: related link '${link.target}' does not resolve: ${link.reason}`);
  dropBrokenRelatedLinks(plugins, brokenLinks);

  const byPrefix = new Map(plugins.map((p) => [p.manifest.prefix, p]));

  /** Plugins that have answered a call in this runtime. */
  const answered = new Set<string>();

  /** Plugins whose adapter (built on first use) failed to build the last time it was tried: problems, as a plugin that failed to load. */
  const adapterBuildFailures = (): PluginLoadFailure[] =>
    plugins.flatMap((p) => (p.buildFailure ? [{ location: p.manifest.file, name: p.manifest.name, prefix: p.manifest.prefix, error: p.buildFailure }] : []));

  /**
   * "ready", "not configured: …", or, for a backend that failed to start or answer, "failing: <reason>".
   * "ready" only once the plugin has answered (a call succeeded, or an MCP server listed its tools
   * itself); before that its settings are complete but nothing says the service is there
   * ("configured, not checked"). A plugin whose adapter reports a failure says so.
   */
  function pluginStatus(plugin: LoadedPlugin): string {
    if (!plugin.configured) return `not configured: ${describeMissing(plugin.missing)}`;
    const health = plugin.adapter?.health?.();
    if (health) return `failing: ${health.reason}`;
    const { prefix, adapter } = plugin.manifest;
    // A REST or CLI catalog is read from the manifest and a restored one from the cache: neither proves the service is there now.
    const listedByServer = typeof adapter === "object" && adapter.kind.startsWith("mcp") && catalog.cached(prefix) !== undefined && catalog.storedAt(prefix) === undefined;
    return answered.has(prefix) || listedByServer ? "ready" : "configured, not checked";
  }
  const engineFromEnv = env.AGENT_TOOLS_SEARCH_ENGINE?.trim();
  if (engineFromEnv && !isSearchEngineName(engineFromEnv)) log.warn(`AGENT_TOOLS_SEARCH_ENGINE='${engineFromEnv}' is not an engine; use ${SEARCH_ENGINES.join(", ")}. Using ${DEFAULT_SEARCH_ENGINE}.`);
  // Both waits by one rule: the caller's option, else the environment (ms or `forever`), else the default.
  const warn = (message: string): void => log.warn(message);
  const waitFromEnvironment = waitFromEnv("AGENT_TOOLS_SEMANTIC_WAIT_MS", env.AGENT_TOOLS_SEMANTIC_WAIT_MS, warn);
  const waitMs = options.semanticWaitMs ?? waitFromEnvironment ?? SEMANTIC_WAIT_MS;
  const modelWaitMs = options.semanticModelWaitMs ?? waitFromEnv("AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS", env.AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS, warn) ?? (store ? 0 : Number.POSITIVE_INFINITY);
  const index = createToolIndex(options.searchEngine ?? (isSearchEngineName(engineFromEnv) ? engineFromEnv : undefined), {
    env,
    log: (message) => log.warn(message),
    ...(Number.isFinite(waitMs) ? { waitMs } : {}),
    ...(Number.isFinite(modelWaitMs) ? { modelWaitMs } : {}),
    // With a store the model loads in the background: after the cold cache's start-up listings.
    ...(store ? { modelLoadAfter: () => startupListingsOver() } : {}),
  });
  // What generic mcpServers entries are about, learnt from their listing (plugin-about.ts).
  const abouts = new Map<string, string>();
  const learnAbout = (plugin: LoadedPlugin, tools: ToolDescriptor[], server: ServerDescription | undefined): void => {
    if (!hasGenericDescription(plugin.manifest)) return;
    const prefix = plugin.manifest.prefix;
    const about = pluginAbout(server, tools);
    if (!about || abouts.get(prefix) === about) return;
    abouts.set(prefix, about);
    // The facade's descriptions carry it: clients re-read tools/list (once, when this listing
    // follows a tools/list_changed: its end tells them).
    if (!toolsChanges.joins(prefix)) announceToolsChange(prefix);
  };
  // Skills are known without asking the adapter, so they are searchable from the start.
  for (const plugin of plugins) index.setPluginDocuments(plugin.manifest.prefix, documentsFor(plugin, []));
  const version = packageJson().version;
  const catalog: Catalog = createCatalog(index, {
    timeoutMs,
    log,
    plugins,
    onKept: learnAbout,
    concurrency: positiveInt(env.AGENT_TOOLS_LIST_CONCURRENCY) ?? DEFAULT_LISTING_CONCURRENCY,
    ...(store ? { store: { store, keyOf: (plugin: LoadedPlugin) => catalogKey(plugin.manifest, env, version) } } : {}),
  });
  // With a store: catalogs it lacks are listed in the background (a few at a time), and a catalog
  // restored from it is confirmed by listing again once a call has started its server anyway.
  const upkeep = store ? startCatalogUpkeep(catalog, plugins, log) : undefined;
  /**
   * Once the start-up listings are done (at once on a warm cache), or MODEL_HELD_BY_LISTING_MS
   * passed: a hung server does not keep semantic search out for its whole deadline.
   */
  function startupListingsOver(): Promise<void> {
    const over = (async () => {
      await upkeep?.begun;
      await catalog.listed();
    })();
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, MODEL_HELD_BY_LISTING_MS)));
    timer?.unref();
    return Promise.race([over, cap]).finally(() => clearTimeout(timer));
  }
  // Watching ends once the restore is over and the restored catalog confirmed (or replaced, or
  // never restored): storedAt is then undefined.
  let restoreOver = false;
  if (store) void catalog.ready.then(() => (restoreOver = true), () => (restoreOver = true));
  function watchUse(plugin: LoadedPlugin): void {
    if (!store) return;
    watchAdapterUse(plugin, () => {
      if (catalog.storedAt(plugin.manifest.prefix) === undefined) return !restoreOver;
      void catalog.refresh(plugin);
      return true;
    });
  }
  for (const plugin of plugins) watchUse(plugin);

  const changeListeners = new Set<(prefix: string) => void>();
  const announceToolsChange = (prefix: string): void => {
    for (const listener of changeListeners) listener(prefix);
  };
  // The server is running (it just said so): it is listed again now, so search and the store
  // follow, and clients hear of it once that list is in and differs (tools-change.ts).
  const toolsChanges = followToolsChanges(catalog, log, announceToolsChange);
  for (const plugin of plugins) plugin.adapter?.onToolsChanged?.(() => toolsChanges.changed(plugin));

  /**
   * The plugin a call names. Only case and `-`/`_` may differ from its prefix: a call is never
   * sent to a plugin it did not name (README "Routing"). A team identity may use only its plugins.
   */
  function requirePlugin(target: string | LoadedPlugin, repairs?: Repair[], identity?: Identity): ReadyPlugin {
    // Only the plugins the identity may use are looked at, before "not configured": a hidden one
    // answers as an unknown name (access.ts). An in-memory plugin is the caller's own (a text
    // module it loaded), so it is not looked up.
    const names = usablePrefixes(identity, byPrefix.keys());
    const prefix = typeof target === "string" ? target : target.manifest.prefix;
    let plugin = typeof target === "string" ? (names.includes(target) ? byPrefix.get(target) : undefined) : target;
    if (!plugin && prefix) {
      const folded = foldedMatch(prefix, names);
      plugin = folded === undefined ? undefined : byPrefix.get(folded);
      if (plugin && repairs) repairs.push({ kind: "matched-plugin-case", message: `plugin '${prefix}' was read as '${plugin.manifest.prefix}'` });
    }
    if (!plugin) {
      const close = prefix ? closestPrefixes(prefix, names) : [];
      const what = prefix ? `no plugin has prefix '${echoed(prefix)}'; nothing was run${close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : ""}` : "'plugin' is missing: name the plugin's prefix (search hits and help show it)";
      // The names to put in `plugin`: those a call can use (configured), after the near ones (a
      // near one not configured answers NOT_CONFIGURED with its fix).
      const offered = [...new Set([...close, ...names.filter((name) => byPrefix.get(name)?.configured)])];
      const unknown = new RuntimeError("UNKNOWN_PLUGIN", what, { plugins: offered.length > 20 ? [...(close.length ? close : offered.slice(0, 5)), `… ${offered.length} plugins in all`] : offered });
      throw prefix ? withRestartNote(unknown, config?.file, [...byPrefix.keys()], prefix) : unknown;
    }
    if (!plugin.configured || !plugin.adapter) {
      // `missing` is what the hint points at, by name; `bins` names the programs among what is missing,
      // whose hint is their own (a program is installed, or its config entry's `command` corrected).
      const hint = missingProgramHint(plugin.missing, commandSettingOf(plugin.manifest));
      throw new RuntimeError("NOT_CONFIGURED", `plugin '${plugin.manifest.prefix}' is not configured: ${describeMissing(plugin.missing)}`, missingDetails(plugin.missing), hint);
    }
    return plugin as ReadyPlugin;
  }

  function isReadOnly(plugin: LoadedPlugin, tool: ToolDescriptor): boolean {
    return writeReason(plugin.manifest, tool) === undefined;
  }

  function needsConfirm(plugin: LoadedPlugin, tool: ToolDescriptor): boolean {
    return plugin.manifest.requireConfirm && !isReadOnly(plugin, tool);
  }

  /** In-memory plugins keep their own catalog and index: they belong to one caller, not to the fleet. */
  const privateCatalogs = new WeakMap<LoadedPlugin, { index: ToolIndex; catalog: Catalog }>();
  const fleetCatalog = { index, catalog };
  const catalogOf = (plugin: LoadedPlugin) => privateCatalogs.get(plugin) ?? fleetCatalog;

  // A callback for the failure rather than an async frame around every call's catalog read.
  const URGENT = { urgent: true } as const;
  const listTools = (plugin: LoadedPlugin): Promise<ToolDescriptor[]> => catalogOf(plugin).catalog.tools(plugin, URGENT);
  function toolsOf(plugin: LoadedPlugin): Promise<ToolDescriptor[]> {
    return asPromise(listTools, plugin).catch((error: unknown) => listingFailed(plugin, error));
  }
  /**
   * A discover's tools. A plugin with skills still answers them when its tools cannot be listed
   * (n8n's REST skills work with its MCP endpoint down): no tools, and why in one line, as
   * search's `unavailable` says it. Without skills there is nothing to answer, and a plugin that
   * is not configured says what to set: the whole error.
   */
  async function discoverableTools(plugin: LoadedPlugin): Promise<{ tools: ToolDescriptor[]; unavailable?: string }> {
    try {
      return { tools: await asPromise(listTools, plugin) };
    } catch (error) {
      if (!plugin.skills.length || !plugin.configured) listingFailed(plugin, error);
      return { tools: [], unavailable: oneLineReason(describeThrown(error)) };
    }
  }
  function listingFailed(plugin: LoadedPlugin, error: unknown): never {
    // The catalog's own deadline already says what timed out.
    if (error instanceof DeadlineError) throw error;
    throw fromThrown(error, `could not list the tools of plugin '${plugin.manifest.prefix}'`);
  }

  /** Plugins the session may call: configured, and allowed for its identity. */
  const usableConfigured = (session: Session): LoadedPlugin[] => plugins.filter((p) => p.configured && p.adapter && mayUsePlugin(session.identity, p.manifest.prefix));

  /**
   * The tools and skills of the plugins the session may use (other than `except`) that `name`
   * names, as search does: catalogs not listed yet are listed, and waited for a little (an error's
   * answer, not the hot path).
   */
  async function elsewhere(session: Session, name: string, except: string): Promise<NamedTarget[]> {
    const others = usableConfigured(session).filter((p) => p.manifest.prefix !== except);
    const unlisted = others.filter((p) => !catalog.cached(p.manifest.prefix));
    if (unlisted.length) await waitAtMost(Promise.allSettled(unlisted.map((p) => catalog.tools(p))), SEARCH_LISTING_WAIT_MS);
    const found: NamedTarget[] = [];
    for (const plugin of others) {
      const prefix = plugin.manifest.prefix;
      const tool = sameNameIn(name, (catalog.cached(prefix) ?? []).map((t) => t.name));
      if (tool) found.push({ plugin: prefix, kind: "tool", name: tool });
      const skill = sameNameIn(name, plugin.skills.map((s) => s.name));
      if (skill) found.push({ plugin: prefix, kind: "skill", name: skill });
    }
    return found;
  }

  /**
   * A call that names no plugin: `<prefix><_ . / :><name>` read as that plugin's tool or skill when
   * it is one plugin the session may use and the rest is one of its tools (skills), case and
   * separators aside; else where a tool or skill of the name (or of its rest) is (pipeline.ts).
   * Only the plugin the name says is listed, as the call would have listed it.
   */
  async function pluginOfName(session: Session, name: string, kind: NamedTarget["kind"]): Promise<{ plugin: string; name: string } | { targets: NamedTarget[]; plugins: string[] }> {
    const usable = usableConfigured(session).map((p) => p.manifest.prefix);
    const readings: Array<{ prefix: string; rest: string }> = [];
    for (let i = 1; i < name.length - 1; i++) {
      if (!"_./:".includes(name[i] as string)) continue;
      const prefix = foldedMatch(name.slice(0, i), usable);
      const rest = name.slice(i + 1).trim();
      if (prefix && rest) readings.push({ prefix, rest });
    }
    const named = new Set(readings.map((r) => r.prefix));
    const [only] = named;
    const plugin = named.size === 1 && only !== undefined ? byPrefix.get(only) : undefined;
    if (plugin) {
      const names = kind === "tool" ? (await toolsOf(plugin).catch(() => [])).map((t) => t.name) : plugin.skills.map((s) => s.name);
      for (const reading of readings) {
        const found = sameNameIn(reading.rest, names);
        if (found) return { plugin: reading.prefix, name: found };
      }
    }
    // Where the name is, or the rest of it after a plugin's prefix; else after a part that is no
    // plugin (`memo_get_note`): a suggestion, never run.
    const targets: NamedTarget[] = [];
    const lookFor = async (sent: string): Promise<void> => {
      for (const target of await elsewhere(session, sent, "")) {
        if (!targets.some((t) => t.plugin === target.plugin && t.kind === target.kind && t.name === target.name)) targets.push(target);
      }
    };
    for (const sent of [name, ...readings.map((r) => r.rest)]) await lookFor(sent);
    for (let i = 1; i < name.length - 1 && !targets.length; i++) if ("_./:".includes(name[i] as string)) await lookFor(name.slice(i + 1));
    return { targets, plugins: usable };
  }

  const confirmPolicyOf = (prefix: string): ConfirmPolicy => config?.plugins.confirm?.[prefix] ?? byPrefix.get(prefix)?.manifest.confirm ?? defaultConfirmPolicy;
  const pipeline = createPipeline({
    resolvePlugin: (target, repairs, session) => requirePlugin(target, repairs, session.identity),
    jobsOf,
    observers,
    tracing: options.tracing,
    toolsOf,
    knownTools: (plugin) => catalogOf(plugin).catalog.known(plugin),
    elsewhere,
    pluginOfName,
    relistTools: (plugin) => catalogOf(plugin).catalog.relist(plugin).catch((error: unknown) => listingFailed(plugin, error)),
    listedFromStore: (plugin) => catalogOf(plugin).catalog.storedAt(plugin.manifest.prefix) !== undefined,
    withheldTools: (plugin) => catalogOf(plugin).catalog.withheld(plugin.manifest.prefix),
    catalogVersion: (target) => {
      if (typeof target !== "string") return catalogOf(target).catalog.version(target.manifest.prefix);
      return catalog.version(byPrefix.has(target) ? target : (foldedMatch(target, byPrefix.keys()) ?? target));
    },
    similarTools: (plugin, name) => catalogOf(plugin).index.search(name, { plugin: plugin.manifest.prefix, limit: 3 }).hits.filter((h) => h.kind === "tool").map((h) => h.name),
    isReadOnly,
    // The runtime's own policy first (identities), then any given; the caller's confirmation comes after validation.
    accessPolicies: [identityWrites, ...(options.accessPolicies ?? [])],
    confirmPolicyOf,
    loop: createLoopBreaker({ ...(options.clock ? { now: options.clock } : {}), ...(options.loopWindowMs ? { windowMs: options.loopWindowMs } : {}) }),
    timeoutMs,
    maxResultChars,
    log,
    redact,
    redactor,
    onAnswered: (prefix) => answered.add(prefix),
  });

  /** The neutral next step for a tool or skill: required arguments as typed placeholders, never `confirm`. */
  function nextStep(prefix: string, key: "toolName" | "skill", name: string, schema: Record<string, unknown> | undefined): NextStep {
    return { plugin: prefix, [key]: name, arguments: argumentSkeleton(schema) };
  }

  interface DescribeOptions {
    /** Name the plugin in the entry (cross-plugin answers). */
    withPlugin?: boolean;
    /** The caller's team identity: links to plugins it may not use are left out. */
    identity?: Identity;
    /** Add the full input schema (search's `detail: true`). */
    detail?: boolean;
    descriptionChars?: number;
    /** Give each entry its own `next` (search; discover says it once). */
    withNext?: boolean;
    present?: (step: NextStep) => unknown;
  }

  const present = (opts: DescribeOptions, step: NextStep): unknown => (opts.present ? opts.present(step) : step);

  function describeTool(plugin: LoadedPlugin, tool: ToolDescriptor, opts: DescribeOptions = {}): CatalogEntry {
    const prefix = plugin.manifest.prefix;
    const entry: CatalogEntry = { ...(opts.withPlugin ? { plugin: prefix } : {}), name: tool.name, description: oneLine(tool.description, opts.descriptionChars) };
    // Cross-plugin answers name only the optional parameters: the required ones are in `next`.
    // With the schema shown (detail), a summary of its parameters would say them twice.
    const params = opts.detail ? undefined : opts.withPlugin ? optionalParams(tool.inputSchema) : paramSummary(tool.inputSchema);
    if (params) entry[opts.withPlugin ? "optional" : "params"] = params;
    if (needsConfirm(plugin, tool)) entry.writes = true;
    if (opts.withNext) entry.next = present(opts, nextStep(prefix, "toolName", tool.name, tool.inputSchema));
    // A cross-plugin answer says it once per plugin, in its top-level notConfigured.
    if (!plugin.configured && !opts.withPlugin) entry.notConfigured = describeMissing(plugin.missing);
    if (opts.detail) entry.inputSchema = shownSchema(tool.inputSchema);
    return entry;
  }

  function describeSkill(plugin: LoadedPlugin, skill: Skill, opts: DescribeOptions = {}): CatalogEntry {
    const entry: CatalogEntry = { ...(opts.withPlugin ? { plugin: plugin.manifest.prefix } : {}), kind: "skill", name: skill.name, description: oneLine(skill.meta.description, opts.descriptionChars) };
    const schema = isSchemaLike(skill.meta.args) ? skill.meta.args : undefined;
    const params = opts.withPlugin && schema ? optionalParams(schema) : skillParamSummary(skill, opts.detail ? Number.MAX_SAFE_INTEGER : opts.withPlugin ? SEARCH_SKILL_ARGS_CHARS : SKILL_ARGS_CHARS);
    if (params) entry[opts.withPlugin && schema ? "optional" : "params"] = params;
    // How a model learns that two plugins are siblings (github and gh-cli): shown with every match.
    // A team identity does not learn of plugins it may not use through a skill's links.
    const related = relatedOf(skill, !opts.withPlugin)?.filter((link) => mayUsePlugin(opts.identity, String(typeof link === "string" ? link : (link as { target: string }).target).split(":")[0] ?? ""));
    if (related?.length) entry.related = related;
    if (opts.withNext) entry.next = present(opts, nextStep(plugin.manifest.prefix, "skill", skill.name, schema));
    // A cross-plugin answer says it once per plugin, in its top-level notConfigured.
    if (!plugin.configured && !opts.withPlugin) entry.notConfigured = describeMissing(plugin.missing);
    // A sentence is already whole in `params` with detail; a schema or name map is added as is.
    if (opts.detail && skill.meta.args && typeof skill.meta.args !== "string") entry.args = skill.meta.args;
    return entry;
  }

  /** The next step for a listed entry (discover says it once, for the first match). */
  function nextFor(plugin: LoadedPlugin, entry: CatalogEntry, tools: readonly ToolDescriptor[]): NextStep | undefined {
    const prefix = plugin.manifest.prefix;
    if (entry.kind === "skill") {
      const skill = plugin.skills.find((s) => s.name === entry.name);
      return skill ? nextStep(prefix, "skill", skill.name, isSchemaLike(skill.meta.args) ? skill.meta.args : undefined) : undefined;
    }
    const tool = tools.find((t) => t.name === entry.name);
    return tool ? nextStep(prefix, "toolName", tool.name, tool.inputSchema) : undefined;
  }

  /** Ranked entries for a query, across plugins or within one: the one code path of search and discover. */
  function rankedEntries(
    query: string,
    limit: number,
    opts: DescribeOptions & { plugin?: string; usable: (prefix: string) => boolean; only?: LoadedPlugin },
  ): Ranked<CatalogEntry> {
    const source = opts.only ? catalogOf(opts.only) : fleetCatalog;
    const scope = opts.plugin !== undefined ? { plugin: opts.plugin } : {};
    // A plugin's own discover ranks that plugin alone, as before; in search, an unconfigured
    // plugin's hits are only named, never entries (unconfigured-hits.ts).
    const configured = (prefix: string) => opts.only !== undefined || byPrefix.get(prefix)?.configured !== false;
    // A plugin's own index holds only it; in the shared one, a plugin this caller may not use or
    // that is not configured leaves hits uncounted only when it has documents in the scope.
    const inScope = opts.plugin !== undefined ? [opts.plugin] : [...byPrefix.keys()];
    const allCounted = opts.only !== undefined || inScope.every((prefix) => (opts.usable(prefix) && configured(prefix) && byPrefix.has(prefix)) || index.size(prefix) === 0);
    return pickRanked<CatalogEntry>({
      search: (cut) => source.index.search(query, cut === undefined ? scope : { ...scope, limit: cut }),
      limit,
      configured,
      pass: (hit) => opts.usable(hit.plugin) && (opts.only ?? byPrefix.get(hit.plugin)) !== undefined,
      build: (hit) => {
        const plugin = (opts.only ?? byPrefix.get(hit.plugin))!;
        if (hit.kind === "skill") {
          const skill = plugin.skills.find((s) => s.name === hit.name);
          return skill ? describeSkill(plugin, skill, opts) : undefined;
        }
        const tool = source.catalog.cached(hit.plugin)?.find((t) => t.name === hit.name);
        return tool ? describeTool(plugin, tool, opts) : undefined;
      },
      allCounted,
    });
  }

  /** One plugin in full, for help({plugin}). */
  function pluginHelp(plugin: LoadedPlugin): PluginHelp["plugin"] {
    const { prefix, name, description, discoverHint, requireConfirm } = plugin.manifest;
    const replacing = replaced.find((r) => r.prefix === prefix);
    return {
      prefix,
      name,
      description,
      status: pluginStatus(plugin),
      ...(plugin.configured
        ? {}
        : { configure: `${configureAdvice(plugin.missing, commandSettingOf(plugin.manifest))}; its tools answer NOT_CONFIGURED until then` }),
      ...(plugin.buildFailure ? { broken: "its adapter could not be built (`status` and `problems` say why), so none of its tools or skills can run; its author or operator must fix it (no arguments or retry can)" } : {}),
      ...(discoverHint ? { hint: discoverHint } : {}),
      ...(requireConfirm ? {} : { confirm: "not required: this plugin's calls run without confirmation" }),
      ...(replacing ? { notice: replacing.notice } : {}),
      ...(plugin.skills.length
        ? {
            skills: plugin.skills.map((s) => ({
              name: s.name,
              description: s.meta.description,
              // The full view: the whole argument sentence, uncut; for a schema, the names discover shows (`id, name*`).
              ...paramsOf(skillParamSummary(s, Number.MAX_SAFE_INTEGER)),
              ...(s.meta.related?.length ? { related: relatedOf(s, true) ?? [] } : {}),
            })),
          }
        : {}),
    };
  }

  /** Per session, the plugins whose full discoverHint it has been shown (gone with the session). */
  const hintsShown = new WeakMap<Session, Set<string>>();

  /** Sessions that have searched (gone with the session). */
  const searched = new WeakSet<Session>();

  /** True for a session's first search (the answer that names every plugin not configured). */
  function firstSearch(session: Session): boolean {
    if (searched.has(session)) return false;
    searched.add(session);
    return true;
  }

  /** True the first time a session discovers a plugin (the answer that carries the plugin's full hint). */
  function firstLookAt(session: Session, prefix: string): boolean {
    let seen = hintsShown.get(session);
    if (!seen) hintsShown.set(session, (seen = new Set()));
    if (seen.has(prefix)) return false;
    seen.add(prefix);
    return true;
  }

  /** Run a discover-context skill: the same gate as a skill run without confirm, so it may read, never write. */
  const discoverContexts = createDiscoverContexts(async (plugin, name, args) => {
    const skill = plugin.skills.find((s) => s.name === name);
    if (!skill) throw new RuntimeError("UNKNOWN_SKILL", `discoverContext names skill '${name}', which plugin '${plugin.manifest.prefix}' does not have`);
    const session = createSession("discover-context");
    const ready = requirePlugin(plugin);
    const what = `skill '${plugin.manifest.prefix}:${name}' (discover context)`;
    // The deadline is the gate's cancellation, and the gate closes when the run settles: a step
    // the skill asks for after either is refused.
    let over = false;
    const raw = await withDeadline(
      (deadline) => {
        const context = { get signal() { return deadline.signal; }, cancel: deadline, sessionId: session.id, log };
        return skill.run(pipeline.adapterForSkill(session, ready, name, false, { cancel: deadline }, { over: () => over, context: () => context }), args, context);
      },
      timeoutMs,
      undefined,
      what,
    ).finally(() => {
      over = true;
    });
    return shapeResult(raw, redact, maxResultChars).result;
  });

  const runtime: Runtime = {
    plugins,
    failures,
    replaced,
    brokenLinks,
    problems: (session, only) => fleetProblems({ missingPluginDirs: missingDirs, unknownDisabled: disableTypos, configProblems: [...settingProblems.map((p) => p.message), ...depthProblems, ...embeddedProblems], failures: [...failures, ...adapterBuildFailures()], brokenLinks, catalogProblems: catalog.problems() }, session?.identity, only),
    notices: (session) => (seesWholeFleet(session?.identity) ? [...replaced.map((r) => r.notice), ...selfReferenceLines, ...pluginless.notices] : []),
    index,
    log,
    redact: (text) => redactor.redact(text),
    redactValue: (value) => redactor.redactValue(value),
    facadeMode,
    confirmPolicyOf,
    configFile: config?.file,
    secretFiles: secretFilesOf(config),
    configSource: describeConfigSource(config, env),
    plugin: (prefix) => byPrefix.get(prefix),
    state,
    catalogStats: () => catalog.stats(),
    createSession: (id, identity) => createSession(id, identity),

    summaries() {
      return plugins.map((p) => {
        const about = abouts.get(p.manifest.prefix);
        const summary: PluginSummary = {
          prefix: p.manifest.prefix,
          name: p.manifest.name,
          description: about ?? p.manifest.description,
          configured: p.configured,
          requireConfirm: p.manifest.requireConfirm,
          skills: p.skills.map((s) => s.name),
        };
        if (p.manifest.discoverHint) summary.discoverHint = p.manifest.discoverHint;
        if (about) summary.about = about;
        if (!p.configured) summary.missing = describeMissing(p.missing);
        return summary;
      });
    },

    catalogsRestored: (waitMs) => waitAtMost(catalog.ready.catch(() => undefined), waitMs),

    async describePlugins(waitMs) {
      const deadline = Date.now() + waitMs;
      // A few rounds: a server that announces tools/list_changed right after connecting (as
      // server-everything does) drops the first listing, and is listed again.
      for (let round = 0; round < 3; round++) {
        const listings = plugins
          .filter((p) => p.configured && p.adapter && hasGenericDescription(p.manifest) && !abouts.has(p.manifest.prefix))
          .map((p) => toolsOf(p).catch(() => undefined));
        const left = deadline - Date.now();
        if (listings.length === 0 || left <= 0) return;
        await waitAtMost(Promise.all(listings), left);
      }
    },

    help(prefix, session) {
      const problems = runtime.problems(session);
      const notices = runtime.notices(session);
      const only = typeof prefix === "string" && prefix.trim() ? prefix.trim() : undefined;
      // Case and `-`/`_` folded as a call's plugin is ("Tasks" is tasks); the facade says the repair.
      const named = only === undefined || byPrefix.has(only) ? only : foldedMatch(only, byPrefix.keys());
      const chosen = named === undefined || !mayUsePlugin(session?.identity, named) ? undefined : byPrefix.get(named);
      if (chosen) {
        // The plugin's own problems (its tool list mended, a broken related link), as the fleet's help says them.
        const own = runtime.problems(session, chosen.manifest.prefix);
        return { plugin: pluginHelp(chosen), ...(own.length ? { problems: own } : {}) };
      }
      if (only !== undefined) {
        // Near names among the plugins this caller may use only (another identity's are not said).
        const close = closestPrefixes(only, [...byPrefix.keys()].filter((p) => mayUsePlugin(session?.identity, p)));
        const near = close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : "";
        return { note: `no plugin has prefix '${echoed(only)}'${near || ";"} ${HELP_WITHOUT_PLUGIN}` };
      }
      return {
        // The config file's path is the host's: for a caller that may use every plugin only.
        ...(seesWholeFleet(session?.identity) ? { config: runtime.configSource } : {}),
        plugins: runtime.summaries().filter((s) => mayUsePlugin(session?.identity, s.prefix)).map((s) => {
          const status = pluginStatus(byPrefix.get(s.prefix) as LoadedPlugin);
          if (!s.configured) return { prefix: s.prefix, status };
          return {
            prefix: s.prefix,
            description: oneLine(s.description) || s.name,
            status,
            ...(s.requireConfirm ? {} : { confirm: "not required: this plugin's calls run without confirmation" }),
            ...(s.skills.length ? { skills: s.skills } : {}),
          };
        }),
        // A bundled plugin the user's own replaced: said once here, so a missing tool is explained
        // (it names the user's plugin file: for a caller that may use every plugin).
        ...(notices.length ? { notices } : {}),
        ...(problems.length ? { problems } : {}),
      };
    },

    async discover(session, target, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args = isPlainObject(rawArgs) ? rawArgs : {};
      const { query, refused } = queryOf(args.query, repairs, "leave 'query' out to list the plugin's tools and skills");
      const sentPrefix = typeof target === "string" ? target : target.manifest.prefix;
      // No `target`: a discover's query is no tool's name, and an error answer's `target` names one.
      return frame(session, { operation: "discover", plugin: sentPrefix, repairs, log, observers, redact, trace: options.tracing?.start("discover", session) }, "discover", async () => {
        if (refused) throw refused;
        const plugin = requirePlugin(target, repairs, session.identity);
        const prefix = plugin.manifest.prefix;
        const { tools, unavailable } = await discoverableTools(plugin);
        let matches: CatalogEntry[];
        let total: number;
        const limit = limitOf(args.limit, DEFAULT_DISCOVER_LIMIT, repairs);
        const short = { descriptionChars: SEARCH_DESCRIPTION_CHARS };
        // Without a query: skills first (they do the most per call), then read-only tools, then the rest.
        const listing = (): CatalogEntry[] => [
          ...plugin.skills.map((s) => describeSkill(plugin, s, short)),
          ...tools.filter((t) => isReadOnly(plugin, t)).map((t) => describeTool(plugin, t, short)),
          ...tools.filter((t) => !isReadOnly(plugin, t)).map((t) => describeTool(plugin, t, short)),
        ];
        // A query that matched nothing in a plugin whose whole catalog fits the answer: the
        // catalog is listed instead (a query in another language finds nothing in the English index).
        let listedInstead = false;
        if (query) {
          // A session's in-memory plugin ranks in its own index, which is never prepared: the
          // shared index's model and embeddings would be work for nothing.
          if (!privateCatalogs.has(plugin)) await index.prepare?.(query, { plugin: prefix });
          const found = rankedEntries(query, limit, { plugin: prefix, usable: () => true, only: plugin, ...short });
          total = found.total;
          matches = found.entries;
          listedInstead = total === 0 && unavailable === undefined && tools.length + plugin.skills.length > 0 && tools.length + plugin.skills.length <= limit;
          if (listedInstead) matches = listing();
        } else {
          const ordered = listing();
          total = ordered.length;
          matches = ordered.slice(0, limit);
        }
        // With a query, `total` is what matched; the plugin's size is said only when listing it.
        // The query is not echoed: the caller has it, and it would cost every answer.
        const answer: DiscoverAnswer =
          query && !listedInstead
            ? { ok: true, plugin: prefix, shown: matches.length, total, matches }
            : { ok: true, plugin: prefix, shown: matches.length, total: listedInstead ? matches.length : total, totals: { tools: tools.length, skills: plugin.skills.length }, matches };
        const first = matches[0] ? nextFor(plugin, matches[0], tools) : undefined;
        if (first) answer.next = ctx.present ? ctx.present(first) : first;
        // Said once, short: `writes: true` marks the entries that change data.
        if (matches.some((m) => m.writes)) answer.confirm = confirmWording(Boolean(ctx.userConfirms) && confirmPolicyOf(prefix) === "elicit", ctx.commandLine);
        if (listedInstead) answer.note = `nothing in '${prefix}' matches '${echoQuery(query)}' (${ENGLISH_INDEX}); its ${plugin.skills.length ? "tools and skills" : "tools"} (${matches.length}) are listed instead`;
        else if (query && total === 0) answer.note = `nothing in '${prefix}' matches '${echoQuery(query)}'; ${ENGLISH_INDEX}, or call without a query to list the tools`;
        if (unavailable !== undefined) {
          answer.unavailable = unavailable;
          const shownNote = answer.note ? `; ${answer.note}` : "";
          answer.note = `the tools of plugin '${prefix}' could not be listed (why: under 'unavailable'), so only its skills are answered; a skill that calls its tools fails until that is fixed${shownNote}`;
        }
        if (query) withCorrections(answer, index.corrections?.(query));
        if (!plugin.manifest.requireConfirm) answer.confirm = "not required: this plugin's calls run without confirmation";
        const declaredContext = discoverContexts.get(plugin);
        if (declaredContext) {
          try {
            answer.context = await declaredContext;
          } catch (error) {
            answer.contextError = describeThrown(error);
          }
        } else if (plugin.adapter.discoverContext) {
          try {
            // A deferred module adapter (deferred-adapter.ts) answers undefined when it has none.
            const context = await plugin.adapter.discoverContext();
            if (context !== undefined) answer.context = context;
          } catch (error) {
            answer.contextError = describeThrown(error);
          }
        }
        const fitted = await fitEntriesToBudget(answer, "matches", discoverBudget(limit), repairsSent(repairs));
        if (fitted.shown < fitted.total && !fitted.more) fitted.more = `${fitted.total - fitted.shown} more: ${query ? "refine the query" : "pass a query"} or raise limit`;
        // The whole hint, once a session (outside the budget: it is the plugin's own guidance):
        // tools/list carries only its first sentence, and the rest costs only when the agent looks.
        const hint = plugin.manifest.discoverHint;
        if (hint && firstLookAt(session, plugin.manifest.prefix)) fitted.hint = hint;
        return fitted;
      });
    },

    async search(session, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args: SearchArgs = isPlainObject(rawArgs) ? rawArgs : {};
      const { query, refused } = queryOf(args.query, repairs, "say in a few words what you want to do");
      // No `target`, as for discover: the query is no tool's name. An error answer names the plugin
      // as sent (a string), or none: "*" is how the search is counted, not a name to send.
      const sent = readPluginArgument(args.plugin);
      const answerPlugin = sent.ok && sent.prefix !== undefined ? sent.prefix : null;
      return frame(session, { operation: "search", plugin: "*", answerPlugin, repairs, log, observers, redact, trace: options.tracing?.start("search", session) }, "search", async () => {
        if (refused) throw refused;
        if (!query) {
          throw new RuntimeError("ARG_VALIDATION_FAILED", "'query' is missing: say in a few words what you want to do, e.g. {\"query\": \"list open issues\"}", {
            errors: [{ path: "/query", message: "must be a non-empty string" }],
          });
        }
        const sentPlugin = searchPluginOf(args.plugin);
        const only = sentPlugin === undefined ? undefined : requirePlugin(sentPlugin, repairs, session.identity).manifest.prefix;
        const limit = limitOf(args.limit, DEFAULT_LIMIT, repairs);
        const detail = detailOf(args.detail, repairs);
        // Every configured catalog must be in the index before ranking; one that cannot be listed
        // is reported, and the others still answer.
        await catalog.ready;
        const allowed = (p: LoadedPlugin): boolean => mayUsePlugin(session.identity, p.manifest.prefix);
        // Unconfigured plugins answer too, marked so, from the catalog their manifest holds (and their skills).
        const wanted = plugins.filter((p) => ((p.configured && p.adapter) || p.catalogOnly) && allowed(p) && (only === undefined || p.manifest.prefix === only));
        const unlisted = wanted.filter((p) => !catalog.cached(p.manifest.prefix));
        // A slow or hung downstream must not hold every search for the whole call deadline: wait a
        // little for listings, answer from what is in, and let the rest finish in the background.
        const outcomes: (PromiseSettledResult<unknown> | undefined)[] = unlisted.map(() => undefined);
        const listings = unlisted.map((p, i) =>
          catalog.tools(p).then(
            (value) => void (outcomes[i] = { status: "fulfilled", value }),
            (reason: unknown) => void (outcomes[i] = { status: "rejected", reason }),
          ),
        );
        await waitAtMost(Promise.all(listings), SEARCH_LISTING_WAIT_MS);
        const unavailable: Record<string, string> = {};
        const failedListings = new Set<string>();
        outcomes.forEach((outcome, i) => {
          const prefix = unlisted[i]!.manifest.prefix;
          if (outcome === undefined) unavailable[prefix] = `still listing its tools after ${SEARCH_LISTING_WAIT_MS} ms; search again shortly, or search within that plugin`;
          // One line each: a server's whole stderr tail (a stack trace) would take the hits' room.
          // The plugin's own discover answers with the whole error.
          else if (outcome.status === "rejected" && unlisted[i]!.configured) {
            unavailable[prefix] = oneLineReason(describeThrown(outcome.reason));
            failedListings.add(prefix);
          }
        });
        const usable = new Set([...wanted, ...plugins.filter((p) => !p.configured && allowed(p) && (only === undefined || p.manifest.prefix === only))].map((p) => p.manifest.prefix));
        await index.prepare?.(query, only !== undefined ? { plugin: only } : {});
        const found = rankedEntries(query, limit, {
          ...(only !== undefined ? { plugin: only } : {}),
          usable: (prefix) => usable.has(prefix),
          withPlugin: true,
          withNext: true,
          identity: session.identity,
          detail,
          descriptionChars: SEARCH_DESCRIPTION_CHARS,
          ...(ctx.present ? { present: ctx.present } : {}),
        });
        // Which plugins are not configured is said on a session's first search, and after that
        // only when one has a setup line or the query's words name one (the instructions name them too).
        const idle = plugins.filter((p) => !p.configured && allowed(p)).map((p) => p.manifest.prefix);
        const words = new Set(query.toLowerCase().split(/[^a-z0-9_-]+/));
        const concernsIdle = found.unconfigured.size > 0 || idle.some((prefix) => words.has(prefix.toLowerCase()));
        const notConfigured = firstSearch(session) || concernsIdle ? idle : [];
        const notice = index.takeNotice?.();
        // Which server each hit comes from, said once per server (a task often needs several).
        const servers: Record<string, string> = {};
        for (const entry of found.entries) {
          const prefix = String(entry.plugin);
          const plugin = byPrefix.get(prefix);
          if (plugin && !(prefix in servers)) servers[prefix] = oneLine(abouts.get(prefix) ?? plugin.manifest.description, SERVER_ABOUT_CHARS) || plugin.manifest.name;
        }
        // An unconfigured plugin that matched is no hit (its call could only answer NOT_CONFIGURED):
        // one line each, after the hits, says what to set and what it would offer.
        const setup: Record<string, string> = {};
        for (const [prefix, names] of found.unconfigured) {
          const plugin = byPrefix.get(prefix);
          if (plugin) setup[prefix] = setupLine(describeMissing(plugin.missing), names);
        }
        const answer = withCorrections(searchAnswer({ limit, max: MAX_LIMIT, entries: found.entries, total: found.total, servers, unavailable, notConfigured, setup, mode: facadeMode, ...(notice ? { notice } : {}) }), index.corrections?.(query));
        // A search within one plugin whose catalog could not be read searched nothing: "try other words" would mislead.
        const unread = only !== undefined ? unavailable[only] : undefined;
        if (unread !== undefined && found.total === 0) {
          answer.note = failedListings.has(only as string)
            ? `nothing was searched: the tools of plugin '${only}' could not be listed (why: under 'unavailable'); its discover answers with the whole error`
            : `nothing was searched yet: plugin '${only}' is ${unread}`;
        }
        // An explicit `detail: true` asked for schemas (still under the result cap); every other answer is kept short.
        if (!detail) return fitEntriesToBudget(answer, "hits", SEARCH_TOKEN_BUDGET, repairsSent(repairs));
        const cap = ctx.maxResultChars ?? maxResultChars;
        if (JSON.stringify(answer).length <= cap) return answer;
        return { ...(await fitEntriesToBudget(answer, "hits", SEARCH_TOKEN_BUDGET, repairsSent(repairs))), note: `with every schema the answer was over ${cap} characters; these are the hits that fit — ask with a smaller limit for the rest` };
      });
    },

    call: (session, target, args, ctx) => pipeline.call(session, target, args, ctx),
    runSkill: (session, target, args, ctx) => pipeline.runSkill(session, target, args, ctx),

    async describe(session, target, toolName, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const sentPrefix = typeof target === "string" ? target : target.manifest.prefix;
      return frame(session, { operation: "describe", plugin: sentPrefix, target: toolName, repairs, log, redact }, "describe", async () => {
        const plugin = requirePlugin(target, repairs, session.identity);
        const tools = await toolsOf(plugin);
        const tool = tools.find((t) => t.name === toolName);
        if (!tool) {
          // A tool the user's config keeps out is refused as a call to it is (pipeline.ts), not as unknown.
          const withheld = catalogOf(plugin).catalog.withheld(plugin.manifest.prefix);
          const out = withheld.length ? (withheld.includes(toolName) ? toolName : sameNameIn(toolName, withheld)) : undefined;
          if (out) throw withheldToolError(plugin.manifest, out);
          const suggestions = closestNames(toolName, tools.map((t) => t.name));
          throw new RuntimeError("UNKNOWN_TOOL", `plugin '${plugin.manifest.prefix}' has no tool '${toolName}'${didYouMean(suggestions)}`, { toolName, ...suggestionsField(suggestions) });
        }
        return {
          ok: true,
          plugin: plugin.manifest.prefix,
          tool: { name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema, ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}) },
          confirm: needsConfirm(plugin, tool),
        };
      });
    },

    memoryPlugin(spec) {
      const manifest: PluginManifest = {
        file: `memory:${spec.prefix}`,
        dir: cwd,
        form: "memory",
        name: spec.name,
        description: spec.description,
        prefix: spec.prefix,
        adapter: { kind: "memory" },
        readonlyTools: spec.readonlyTools ?? [],
        requireConfirm: spec.requireConfirm ?? true,
        ...(spec.trustReadOnlyHints === false ? { trustReadOnlyHints: false } : {}),
        requires: { env: [], bins: [] },
        raw: {},
      };
      const plugin: LoadedPlugin = { manifest, adapter: spec.adapter, skills: [], missing: { env: [], bins: [] }, configured: true };
      // Its own index waits until its few tools are embedded, unless the environment sets a wait.
      const own = createToolIndex(index.engine as SearchEngineName, waitFromEnvironment !== undefined && Number.isFinite(waitFromEnvironment) ? { waitMs: waitFromEnvironment } : {});
      privateCatalogs.set(plugin, { index: own, catalog: createCatalog(own, { timeoutMs, log }) });
      return plugin;
    },

    toolOwners(name, identity) {
      const found: Array<{ plugin: string; name: string }> = [];
      // A name no tool could have is not compared with every catalog.
      if (name.length > MAX_OWNED_NAME_CHARS) return found;
      for (const plugin of plugins) {
        const prefix = plugin.manifest.prefix;
        if (!plugin.configured || !plugin.adapter || !mayUsePlugin(identity, prefix)) continue;
        const tool = sameNameIn(name, (catalog.cached(prefix) ?? []).map((t) => t.name));
        if (tool) found.push({ plugin: prefix, name: tool });
      }
      return found;
    },
    excludedTool(prefix, name) {
      const manifest = byPrefix.get(prefix)?.manifest;
      if (!manifest || (!manifest.includeTools && !manifest.excludeTools)) return undefined;
      const out = withheldName(manifest, name, catalog.cached(prefix) ? catalog.withheld(prefix) : undefined);
      return out === undefined ? undefined : `tool '${out}' of plugin '${prefix}' is not served: ${excludedSentence(manifest, out)}`;
    },
    onToolsChanged(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },

    async close() {
      changeListeners.clear();
      toolsChanges.close();
      upkeep?.stop();
      catalog.close();
      await Promise.allSettled(plugins.map(async (p) => p.adapter?.close?.()));
      await catalog.flush();
      if (ownState) await state.close();
      unmaskStrayStdout();
    },
  };
  return runtime;
}
