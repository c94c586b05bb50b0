import type { Adapter, Logger, ServerDescription, ToolDescriptor } from "../adapters/types.js";
import { checkAgainstSchema } from "../json-schema.js";
import { createLogger } from "../log.js";
import { RUNTIME_ROOT, packageJson } from "../paths.js";
import { BUILTIN_ADAPTER_KINDS } from "../adapters/index.js";
import { describeConfigSource, type AgentToolsConfig } from "../config/config.js";
import { defaultManifests, EMBEDDED_ORIGIN } from "../config/defaults.js";
import { manifestsFromConfig } from "../config/mcp-servers.js";
import { discoverPluginDirs, isBundledLocation } from "../plugins/discovery.js";
import { loadPlugins, type DeclarativeAdapterFactory, type LoadedPlugin, type PluginLoadFailure, type PluginSource, type ReplacedPlugin } from "../plugins/loader.js";
import { findBrokenRelatedLinks, type BrokenRelatedLink } from "../plugins/related.js";
import { describeMissing } from "../plugins/requirements.js";
import type { Skill } from "../plugins/skills.js";
import { createCatalog, DEFAULT_LISTING_CONCURRENCY, documentsFor, type Catalog } from "./catalog.js";
import { catalogKey } from "./catalog-cache/key.js";
import { catalogStoreFromEnv, type CatalogStore } from "./catalog-cache/store.js";
import { startCatalogUpkeep, watchAdapterUse } from "./catalog-upkeep.js";
import { hasGenericDescription, pluginAbout } from "./plugin-about.js";
import { createDiscoverContexts } from "./discover-context.js";
import { describeThrown, fromThrown, isRuntimeError, RuntimeError, type ErrorPayload } from "./errors.js";
import { loopKey, previousFailures, rememberOutcome, shouldBreakLoop } from "./loop-breaker.js";
import { repairRequest, stripToolPrefix, type Repair } from "./repair.js";
import { capResult, unwrapResult, withDeadline } from "./result.js";
import { createToolIndex, DEFAULT_SEARCH_ENGINE, isSearchEngineName, SEARCH_ENGINES, type SearchEngineName, type ToolIndex } from "./search/index.js";
import { resolveFacadeMode, type FacadeMode } from "./facade-mode.js";
import { argumentSkeleton, fitToBudget, searchAnswer, SEARCH_DESCRIPTION_CHARS, type SearchArgs } from "./search-answer.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { createSession, recordCall, type Session } from "./session.js";
import { createRedactor } from "../adapters/shared/redact.js";
import { fleetSecrets } from "./redaction.js";
import { demoteUnconfigured } from "./unconfigured-hits.js";
import { embeddedDropped, missingPluginDirs, notConfiguredLine, unknownDisabled } from "./startup-notices.js";
import { describedSkillParams, isSchemaLike, relatedOf, skillReportedFailure } from "./skill-answer.js";
import { jobStoreFor } from "./jobs.js";
import type { CallRelay } from "../adapters/relay.js";
import { ConfirmInterrupt, isConfirmPolicy, type ConfirmPolicy, type ConfirmQuestion, type Confirmer } from "./confirm.js";
import { checkPlugin, forbiddenWrite, mayUsePlugin, type Identity } from "./access.js";
import type { CallObserver, CallFacts } from "./observer.js";
import { createSharedState, type SharedState } from "../state/index.js";
import { createAuditObserver } from "./audit.js";
import { closestNames, foldedMatch, similarity } from "./similarity.js";

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
  /** Per-call deadline for adapter calls and skills; default 60 s (AGENT_TOOLS_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
  /** Largest result, in characters of JSON, before it is cut; default 100,000. */
  maxResultChars?: number;
  /** Plugins made in code (e.g. search-bench's in-memory catalogs), loaded instead of any discovery. */
  manifests?: PluginManifest[];
  /** The ranking engine; default hybrid (README "Semantic search" has the measurements). */
  searchEngine?: SearchEngineName;
  /**
   * How long a search waits for the semantic engine to embed catalog text before answering from
   * BM25F alone (it keeps embedding in the background). Default 5 s; Infinity waits until done.
   */
  semanticWaitMs?: number;
  /** Facade shape; else AGENT_TOOLS_FACADE, else config facade.mode, else per-plugin. */
  facadeMode?: FacadeMode;
  /** Shared state (jobs, tokens, counters, audit); default from AGENT_TOOLS_REDIS_URL / config team, else memory. */
  state?: SharedState;
  /** Told of every discover, search, call and skill run once it has its outcome (metrics, audit); awaited before the answer. */
  observers?: CallObserver[];
  /**
   * Where plugin catalogs persist between runs: a store, or false for none. Default: the file
   * store in the user's cache folder named by `env` (AGENT_TOOLS_CACHE_DIR, XDG_CACHE_HOME, HOME;
   * AGENT_TOOLS_CATALOG_CACHE=off disables it); none for in-code `manifests`.
   */
  catalogCache?: CatalogStore | false;
}

export interface OperationContext {
  signal?: AbortSignal;
  /** Repairs already made above the runtime (e.g. a misspelt facade tool that was routed). */
  repairs?: Repair[];
  /** A larger (or smaller) result cap for this call: the text layer filters results before a model sees them. */
  maxResultChars?: number;
  /** Asks the user to confirm a write, when the client can show a form (confirm.ts); absent: the `confirm` flag decides. */
  confirmer?: Confirmer;
  /** Where the downstream's progress, logs and questions go during the call (adapters/relay.ts). */
  relay?: CallRelay;
}

/** What an operation answers: a JSON payload and whether it is an error. */
export interface OperationResult {
  isError: boolean;
  payload: Record<string, unknown>;
}

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

export interface Runtime {
  readonly plugins: readonly LoadedPlugin[];
  readonly failures: readonly PluginLoadFailure[];
  /** Bundled plugins left out for a user plugin or config entry with the same prefix. */
  readonly replaced: readonly ReplacedPlugin[];
  readonly brokenLinks: readonly BrokenRelatedLink[];
  readonly index: ToolIndex;
  readonly log: Logger;
  /** How the facade presents the fleet: a trio per plugin, or five fixed tools. */
  readonly facadeMode: FacadeMode;
  /** The config file this runtime was built from (absolute), if any: it may hold credentials. */
  readonly configFile: string | undefined;
  /** Which config file was read and how it was found, or where none was found: for help and status. */
  readonly configSource: string;
  plugin(prefix: string): LoadedPlugin | undefined;
  summaries(): PluginSummary[];
  /**
   * List the configured mcpServers entries that have no description of their own, so summaries
   * can say what each is about; waits at most `waitMs` (the rest finish in the background).
   */
  describePlugins(waitMs: number): Promise<void>;
  /** Shared state of the fleet (memory or Redis). */
  readonly state: SharedState;
  /** Catalog cache counts since start (metrics). */
  catalogStats(): { hits: number; misses: number };
  createSession(id?: string, identity?: Identity): Session;
  /**
   * The protocol and every plugin; with a prefix, that plugin in full (whole discoverHint, each
   * skill). With a session, only the plugins its identity may use.
   */
  help(prefix?: string, session?: Session): Record<string, unknown>;
  discover(session: Session, prefix: string, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** One ranked answer across every plugin ({query, limit?, plugin?, detail?}); agent_tools_search and search-bench use it. */
  search(session: Session, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  call(session: Session, prefix: string, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  runSkill(session: Session, prefix: string, args: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** Called with the plugin's prefix whenever a plugin's tool list changes. Returns an unsubscribe. */
  onToolsChanged(listener: (prefix: string) => void): () => void;
  close(): Promise<void>;
}

/** Well under the 60 s most MCP clients wait (the SDK default), so our own error, with its hint, arrives first. */
const DEFAULT_TIMEOUT_MS = 40_000;
const DEFAULT_MAX_RESULT_CHARS = 100_000;
const DEFAULT_DISCOVER_LIMIT = 10;
const MAX_DISCOVER_LIMIT = 50;
const DESCRIPTION_CHARS = 160;
const MAX_OPTIONAL_NAMES = 3;

const COMPACT_PROTOCOL = [
  "Each plugin wraps one service. Its tools are not listed up front: find them first.",
  "1. agent_tools_search({query}) — a few words of what you need; answers ranked tools and skills of every plugin, each with the exact call to make next.",
  "2. agent_tools_call({plugin, toolName, arguments}) — arguments are checked against the tool's schema; tools that change data also need confirm: true.",
  "3. agent_tools_run_skill({plugin, skill, arguments}) — a server-side recipe that makes several calls in one.",
  "Errors carry a code and a hint saying how to fix the call; follow the hint instead of retrying unchanged.",
];

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function oneLine(text: string | undefined, max: number = DESCRIPTION_CHARS): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  const firstSentence = flat.match(/^(.+?[.!?])(\s|$)/)?.[1] ?? flat;
  const line = firstSentence.length >= 40 ? firstSentence : flat;
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** How long a search waits for catalogs not yet listed before it answers without them. */
const SEARCH_LISTING_WAIT_MS = 3000;
/** Characters of each server's line in a search answer's `servers`. */
const SERVER_ABOUT_CHARS = 60;
/** A first search over a large uncached catalog answers from BM25F after this, while embedding goes on. */
const SEMANTIC_WAIT_MS = 5000;

/** A search query past this length says nothing more to the index, and would be echoed whole in the answer. */
const MAX_QUERY_CHARS = 500;

function queryOf(raw: unknown, repairs: Repair[]): string {
  const query = typeof raw === "string" ? raw.trim() : "";
  if (query.length <= MAX_QUERY_CHARS) return query;
  repairs.push({ kind: "shortened-query", message: `the query was ${query.length} characters; its first ${MAX_QUERY_CHARS} were used` });
  return query.slice(0, MAX_QUERY_CHARS);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

function paramSummary(schema: Record<string, unknown>): string {
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === "string") : []);
  return properties.map((p) => (required.has(p) ? `${p}*` : p)).join(", ");
}

function optionalParams(schema: Record<string, unknown>): string {
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  const optional = properties.filter((p) => !required.has(p));
  // A few names are enough to know a tool fits; the schema (detail: true) has the rest.
  return optional.length > MAX_OPTIONAL_NAMES ? `${optional.slice(0, MAX_OPTIONAL_NAMES).join(", ")} +${optional.length - MAX_OPTIONAL_NAMES}` : optional.join(", ");
}

/** Characters of a skill's argument sentence shown in discover (its own plugin) and in search (across plugins). */
const SKILL_ARGS_CHARS = 200;
const SEARCH_SKILL_ARGS_CHARS = 100;

function skillParamSummary(skill: Skill, maxChars: number): string {
  const args = skill.meta.args;
  if (!args) return "";
  if (isSchemaLike(args)) return paramSummary(args);
  return describedSkillParams(args, maxChars);
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const log = options.log ?? createLogger();
  const timeoutMs = options.callTimeoutMs ?? positiveInt(env.AGENT_TOOLS_CALL_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
  const maxResultChars = options.maxResultChars ?? positiveInt(env.AGENT_TOOLS_MAX_RESULT_CHARS) ?? DEFAULT_MAX_RESULT_CHARS;

  const ownState = options.state === undefined;
  const state = options.state ?? (await createSharedState({ env, log, ...(options.config?.team ? { settings: options.config.team } : {}) }));
  // Without observers given (stdio, embedders), writes are still audited wherever the state keeps its log.
  const observers = options.observers ?? (state.audit ? [createAuditObserver({ audit: state.audit, instanceId: state.instanceId, log })] : []);
  // Team mode: an identity's jobs are its own across sessions and instances; else per session.
  const jobsOf = (session: Session, prefix: string) =>
    jobStoreFor(session, prefix, {}, { records: state.jobs, instanceId: state.instanceId, shared: state.backend === "redis", ...(session.identity ? { scope: `identity:${session.identity.name}` } : {}) });

  const cwd = options.cwd ?? process.cwd();
  const facadeMode = options.facadeMode ?? resolveFacadeMode(env, options.config, log);
  const skipBundled = options.skipBundled ?? env.AGENT_TOOLS_NO_BUNDLED_PLUGINS === "1";
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
  if (options.manifests) sources.push(...options.manifests);
  else if (config) sources.push(...manifestsFromConfig(config));
  sources.push(...dirs.filter(isBundledDir));
  if (!options.manifests && (!config?.file || config.plugins.embedded === true) && !skipBundled && !options.pluginDirs) sources.push(...defaultManifests(cwd, env, config?.file));
  // One redactor for the whole fleet: adapters add what they learn at run time, and every answer
  // leaves through it (see redaction.ts).
  const redactor = createRedactor();
  const loadOptions = {
    env,
    log,
    redactor,
    disable: config?.plugins.disable ?? [],
    adapterKinds: { ...BUILTIN_ADAPTER_KINDS, ...(options.adapterKinds ?? {}) },
    // Only state that other processes see is worth keeping tokens in: an in-memory one would
    // shadow the token store file that this host's other runtimes refresh under its lock.
    ...(state.backend === "redis" ? { shared: state } : {}),
    isBundled: (manifest: PluginManifest) => manifest.file === EMBEDDED_ORIGIN || (manifest.form !== "config" && isBundledDir(manifest.dir)),
  };
  const { plugins, failures, replaced, disabled: knownNames } = await loadPlugins(sources, loadOptions);
  for (const notice of [
    ...(config?.notices ?? []),
    ...(options.manifests || options.pluginDirs ? [] : missingPluginDirs(env.AGENT_TOOLS_PLUGINS_DIR, config?.plugins.dirs ?? [])),
    ...unknownDisabled(config?.plugins.disable ?? [], knownNames),
    ...(skipBundled || options.manifests ? [] : embeddedDropped(config)),
  ]) log.warn(notice);
  const idleLine = notConfiguredLine(plugins);
  if (idleLine) log.info(idleLine);
  for (const secret of fleetSecrets(plugins.map((p) => p.manifest), env)) redactor.add(secret);
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

  const byPrefix = new Map(plugins.map((p) => [p.manifest.prefix, p]));

  /** "ready", "not configured: …", or, for a backend that failed to start or answer, "failing: <reason>". */
  /** Plugins that have answered a call in this runtime. */
  const answered = new Set<string>();

  /**
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
  const waitMs = options.semanticWaitMs ?? SEMANTIC_WAIT_MS;
  const index = createToolIndex(options.searchEngine ?? (isSearchEngineName(engineFromEnv) ? engineFromEnv : undefined), {
    env,
    log: (message) => log.warn(message),
    ...(Number.isFinite(waitMs) ? { waitMs } : {}),
  });
  // What generic mcpServers entries are about, learnt from their listing (plugin-about.ts).
  const abouts = new Map<string, string>();
  const learnAbout = (plugin: LoadedPlugin, tools: ToolDescriptor[], server: ServerDescription | undefined): void => {
    if (!hasGenericDescription(plugin.manifest)) return;
    const prefix = plugin.manifest.prefix;
    const about = pluginAbout(server, tools);
    if (!about || abouts.get(prefix) === about) return;
    abouts.set(prefix, about);
    // The facade's descriptions carry it: clients re-read tools/list.
    for (const listener of changeListeners) listener(prefix);
  };
  // Skills are known without asking the adapter, so they are searchable from the start.
  for (const plugin of plugins) index.setPluginDocuments(plugin.manifest.prefix, documentsFor(plugin, []));
  // A team gateway keeps catalogs in its shared state (unless AGENT_TOOLS_CATALOG_CACHE=off turns caching off).
  const fromEnv = options.manifests ? undefined : catalogStoreFromEnv(env);
  const store = options.catalogCache ?? (fromEnv && state.catalogs ? state.catalogs : fromEnv);
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
  if (store) for (const plugin of plugins) watchAdapterUse(plugin, () => {
    if (catalog.storedAt(plugin.manifest.prefix) !== undefined) void catalog.refresh(plugin);
  });

  const changeListeners = new Set<(prefix: string) => void>();
  for (const plugin of plugins) {
    plugin.adapter?.onToolsChanged?.(() => {
      const prefix = plugin.manifest.prefix;
      catalog.invalidate(prefix);
      index.setPluginDocuments(prefix, documentsFor(plugin, []));
      log.info(`plugin '${prefix}' changed its tool list`);
      // The server is running (it just said so): list it again now, so search and the store follow.
      if (store) void catalog.refresh(plugin);
      for (const listener of changeListeners) listener(prefix);
    });
  }

  /**
   * The plugin a call names. Only case and `-`/`_` may differ from its prefix: a call is never
   * sent to a plugin it did not name (README "Routing"). A team identity may use only its plugins.
   */
  function requirePlugin(prefix: string, repairs?: Repair[], identity?: Identity): LoadedPlugin & { adapter: Adapter } {
    let plugin = byPrefix.get(prefix);
    if (!plugin && prefix) {
      const folded = foldedMatch(prefix, byPrefix.keys());
      plugin = folded === undefined ? undefined : byPrefix.get(folded);
      if (plugin && repairs) repairs.push({ kind: "matched-plugin-case", message: `plugin '${prefix}' was read as '${plugin.manifest.prefix}'` });
    }
    // Before "not configured": an identity learns nothing more about plugins it may not use.
    if (plugin) checkPlugin(identity, plugin.manifest.prefix);
    if (!plugin) {
      const names = [...byPrefix.keys()];
      const close = prefix ? closestNames(prefix, names) : [];
      const what = prefix ? `no plugin has prefix '${prefix}'; nothing was run${close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : ""}` : "'plugin' is missing: name the plugin's prefix (agent_tools_search hits and agent_tools_help show it)";
      throw new RuntimeError("UNKNOWN_PLUGIN", what, { plugins: names.length > 20 ? [...(close.length ? close : names.slice(0, 5)), `… ${names.length} plugins in all`] : names });
    }
    if (!plugin.configured || !plugin.adapter) {
      throw new RuntimeError("NOT_CONFIGURED", `plugin '${prefix}' is not configured: ${describeMissing(plugin.missing)}`, {
        missing: [...plugin.missing.env, ...plugin.missing.bins],
        env: plugin.missing.env,
        bins: plugin.missing.bins,
      });
    }
    return plugin as LoadedPlugin & { adapter: Adapter };
  }

  function isReadOnly(plugin: LoadedPlugin, tool: ToolDescriptor): boolean {
    if (plugin.manifest.confirmTools?.includes(tool.name)) return false;
    return plugin.manifest.readonlyTools.includes(tool.name) || tool.annotations?.readOnlyHint === true;
  }

  function needsConfirm(plugin: LoadedPlugin, tool: ToolDescriptor): boolean {
    return plugin.manifest.requireConfirm && !isReadOnly(plugin, tool);
  }

  /** The confirm policy of a plugin: its config override, its manifest, then the runtime's default. */
  function confirmPolicyOf(plugin: LoadedPlugin): ConfirmPolicy {
    return config?.plugins.confirm?.[plugin.manifest.prefix] ?? plugin.manifest.confirm ?? defaultConfirmPolicy;
  }

  /**
   * The confirm gate for one write. With a confirmer (the client can ask its user) and the
   * "elicit" policy, the user decides and the model's `confirm` is not looked at; otherwise the
   * model's `confirm: true` lets it through. A decline or cancel runs nothing.
   */
  async function passConfirmGate(plugin: LoadedPlugin, question: ConfirmQuestion, flagged: boolean, confirmer: Confirmer | undefined, refusal: () => RuntimeError): Promise<void> {
    if (confirmer && confirmPolicyOf(plugin) === "elicit") {
      const decision = await confirmer(question);
      if (decision === "accept") return;
      const what = question.skill ? `skill '${question.skill}'` : `'${question.tool}'`;
      throw new RuntimeError("CONFIRM_DECLINED", `the user ${decision === "decline" ? "declined" : "cancelled"} ${what} of plugin '${question.plugin}' when asked to confirm it; nothing was changed`, {
        tool: question.tool,
        decision,
        ...(question.skill ? { skill: question.skill } : {}),
      });
    }
    if (!flagged) throw refusal();
  }

  /**
   * The adapter a skill receives: the plugin's own, except that a call to a tool that changes
   * data is held to the same confirm gate as `_call` unless the skill was run with confirm: true.
   * Without this a skill would be a way around the gate. The gate trips before the write, so a
   * refused skill has done only reads.
   */
  function gatedForSkill(
    plugin: LoadedPlugin,
    skill: string,
    confirmed: boolean,
    refusals?: RuntimeError[],
    guard?: { identity: Identity | undefined; facts: CallFacts },
    asking?: { confirmer: Confirmer | undefined; interrupts: ConfirmInterrupt[]; skillArguments: unknown },
  ): Adapter {
    const adapter = plugin.adapter as Adapter;
    const readOnlyIdentity = guard?.identity && !guard.identity.write ? guard.identity : undefined;
    const asks = asking?.confirmer !== undefined && confirmPolicyOf(plugin) === "elicit";
    if (((confirmed && !asks) || !plugin.manifest.requireConfirm) && !guard) return adapter;
    const call: Adapter["call"] = async (name, args, callCtx) => {
      const tool = (await toolsOf(plugin)).find((t) => t.name === name);
      const writes = tool ? !isReadOnly(plugin, tool) : false;
      if (writes && readOnlyIdentity) throw forbiddenWrite(readOnlyIdentity, plugin.manifest.prefix, `skill '${skill}' calls '${name}', which`);
      if (tool && needsConfirm(plugin, tool)) {
        const refusal = (): RuntimeError => new RuntimeError("CONFIRM_REQUIRED", `skill '${skill}' calls '${name}', which changes data; run the skill again with confirm: true`, { skill, tool: name });
        try {
          await passConfirmGate(plugin, { plugin: plugin.manifest.prefix, tool: name, arguments: args, skill, skillArguments: asking?.skillArguments ?? {} }, confirmed, asking?.confirmer, refusal);
        } catch (error) {
          // Kept, so a skill that catches the refusal (or the pending question) and answers normally still stops (below).
          if (error instanceof ConfirmInterrupt) asking?.interrupts.push(error);
          else if (error instanceof RuntimeError) refusals?.push(error);
          throw error;
        }
      }
      // The skill run counts as a write (audit) from its first call that changes data.
      if (writes && guard) guard.facts.mutating = true;
      return adapter.call(name, args, callCtx);
    };
    return new Proxy(adapter, {
      get(target, property) {
        if (property === "call") return call;
        const value: unknown = Reflect.get(target, property, target);
        // Bound to the real adapter, so class adapters with private fields keep working.
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  async function toolsOf(plugin: LoadedPlugin): Promise<ToolDescriptor[]> {
    try {
      return await catalog.tools(plugin, { urgent: true });
    } catch (error) {
      throw fromThrown(error, `could not list the tools of plugin '${plugin.manifest.prefix}'`);
    }
  }

  /** The exact facade call to make next, in the current facade mode, with the required arguments sketched. */
  function nextCall(prefix: string, key: "toolName" | "skill", name: string, schema: Record<string, unknown> | undefined, confirm: boolean): string {
    const target = facadeMode === "compact" ? `"plugin":"${prefix}",` : "";
    const tool = facadeMode === "compact" ? (key === "skill" ? "agent_tools_run_skill" : "agent_tools_call") : `agent_tools_${prefix}_${key === "skill" ? "run_skill" : "call"}`;
    return `${tool} {${target}"${key}":"${name}","arguments":${argumentSkeleton(schema)}${confirm ? ',"confirm":true' : ""}}`;
  }

  interface DescribeOptions {
    /** Name the plugin in the entry (cross-plugin answers). */
    withPlugin?: boolean;
    /** The caller's team identity: links to plugins it may not use are left out. */
    identity?: Identity;
    /** Add the full input schema (search's `detail: true`). */
    detail?: boolean;
    descriptionChars?: number;
  }

  function describeTool(plugin: LoadedPlugin, tool: ToolDescriptor, opts: DescribeOptions = {}): Record<string, unknown> {
    const prefix = plugin.manifest.prefix;
    const entry: Record<string, unknown> = {
      ...(opts.withPlugin ? { plugin: prefix } : {}),
      kind: "tool",
      name: tool.name,
      description: oneLine(tool.description, opts.descriptionChars),
    };
    // Cross-plugin answers name only the optional parameters: the required ones are in `next`.
    const params = opts.withPlugin ? optionalParams(tool.inputSchema) : paramSummary(tool.inputSchema);
    if (params) entry[opts.withPlugin ? "optional" : "params"] = params;
    // Cross-plugin answers leave the flag to `next` (which carries confirm: true): every token counts there.
    if (needsConfirm(plugin, tool) && !opts.withPlugin) entry.confirm = true;
    entry.next = nextCall(prefix, "toolName", tool.name, tool.inputSchema, needsConfirm(plugin, tool));
    if (!plugin.configured) entry.notConfigured = describeMissing(plugin.missing);
    if (opts.detail) entry.inputSchema = tool.inputSchema;
    return entry;
  }

  function describeSkill(plugin: LoadedPlugin, skill: Skill, opts: DescribeOptions = {}): Record<string, unknown> {
    const entry: Record<string, unknown> = {
      ...(opts.withPlugin ? { plugin: plugin.manifest.prefix } : {}),
      kind: "skill",
      name: skill.name,
      description: oneLine(skill.meta.description, opts.descriptionChars),
    };
    const schema = isSchemaLike(skill.meta.args) ? skill.meta.args : undefined;
    const params = opts.withPlugin && schema ? optionalParams(schema) : skillParamSummary(skill, opts.detail ? Number.MAX_SAFE_INTEGER : opts.withPlugin ? SEARCH_SKILL_ARGS_CHARS : SKILL_ARGS_CHARS);
    if (params) entry[opts.withPlugin && schema ? "optional" : "params"] = params;
    // How a model learns that two plugins are siblings (github and gh-cli): shown with every match.
    // A team identity does not learn of plugins it may not use through a skill's links.
    const related = relatedOf(skill, !opts.withPlugin)?.filter((link) => mayUsePlugin(opts.identity, String(typeof link === "string" ? link : (link as { target: string }).target).split(":")[0] ?? ""));
    if (related?.length) entry.related = related;
    entry.next = nextCall(plugin.manifest.prefix, "skill", skill.name, schema, false);
    if (!plugin.configured) entry.notConfigured = describeMissing(plugin.missing);
    // A sentence is already whole in `params` with detail; a schema or name map is added as is.
    if (opts.detail && skill.meta.args && typeof skill.meta.args !== "string") entry.args = skill.meta.args;
    return entry;
  }

  /** Ranked entries for a query, across plugins or within one: the one code path of search and discover. */
  function rankedEntries(query: string, limit: number, opts: DescribeOptions & { plugin?: string; usable: (prefix: string) => boolean }): { entries: Record<string, unknown>[]; total: number } {
    // Ask for more than the limit: hits of plugins that cannot be used are dropped after ranking.
    const found = index.search(query, { ...(opts.plugin !== undefined ? { plugin: opts.plugin } : {}) });
    const entries: Record<string, unknown>[] = [];
    let total = 0;
    for (const hit of demoteUnconfigured(found.hits, (prefix) => byPrefix.get(prefix)?.configured !== false)) {
      if (!opts.usable(hit.plugin)) continue;
      const plugin = byPrefix.get(hit.plugin);
      if (!plugin) continue;
      let entry: Record<string, unknown> | undefined;
      if (entries.length < limit) {
        if (hit.kind === "skill") {
          const skill = plugin.skills.find((s) => s.name === hit.name);
          if (skill) entry = describeSkill(plugin, skill, opts);
        } else {
          const tool = catalog.cached(hit.plugin)?.find((t) => t.name === hit.name);
          if (tool) entry = describeTool(plugin, tool, opts);
        }
        if (!entry) continue;
        entries.push(entry);
      }
      total += 1;
    }
    return { entries, total };
  }


  /** One plugin in full, for agent_tools_help({plugin}). */
  function pluginHelp(plugin: LoadedPlugin): Record<string, unknown> {
    const { prefix, name, description, discoverHint, requireConfirm } = plugin.manifest;
    const replacing = replaced.find((r) => r.prefix === prefix);
    return {
      prefix,
      name,
      description,
      status: pluginStatus(plugin),
      ...(discoverHint ? { hint: discoverHint } : {}),
      ...(requireConfirm ? {} : { confirm: "not required: this plugin's calls run without confirmation" }),
      ...(replacing ? { notice: replacing.notice } : {}),
      ...(plugin.skills.length
        ? {
            skills: plugin.skills.map((s) => {
              // The full view: the whole argument sentence, uncut.
              const params = skillParamSummary(s, Number.MAX_SAFE_INTEGER);
              const related = relatedOf(s, true);
              return { name: s.name, description: s.meta.description, ...(params ? { params } : {}), ...(related ? { related } : {}) };
            }),
          }
        : {}),
      next: facadeMode === "compact" ? `agent_tools_search {"query":"…","plugin":"${prefix}"}` : `agent_tools_${prefix}_discover {"query":"…"}`,
    };
  }

  /** Per session, the plugins whose full discoverHint it has been shown (gone with the session). */
  const hintsShown = new WeakMap<Session, Set<string>>();

  /** True the first time a session discovers a plugin (the answer that carries the plugin's full hint). */
  function firstLookAt(session: Session, prefix: string): boolean {
    let seen = hintsShown.get(session);
    if (!seen) hintsShown.set(session, (seen = new Set()));
    if (seen.has(prefix)) return false;
    seen.add(prefix);
    return true;
  }

  /** Shared frame of every operation: loop check, error → payload, call log. */
  async function operate(
    session: Session,
    operation: string,
    prefix: string,
    repairs: Repair[],
    loopTarget: unknown,
    target: string | undefined,
    work: (facts: CallFacts) => Promise<Record<string, unknown>>,
    args?: unknown,
  ): Promise<OperationResult> {
    const started = Date.now();
    const facts: CallFacts = { mutating: false };
    const key = loopTarget === undefined ? undefined : loopKey(`${operation}:${prefix}`, loopTarget);
    let payload: Record<string, unknown>;
    let errorCode: string | undefined;
    try {
      if (key !== undefined && shouldBreakLoop(session, key)) {
        const previous = previousFailures(session, key);
        errorCode = "LOOP_DETECTED";
        throw new RuntimeError(
          "LOOP_DETECTED",
          `this exact ${operation} has failed ${previous?.count ?? 2} times in a row with ${previous?.code ?? "the same error"}; it was not run again`,
          { previousError: previous?.code, attempts: (previous?.count ?? 2) + 1 },
        );
      }
      payload = { ok: true, ...(await work(facts)) };
    } catch (error) {
      // A question for the user is not a failure: it goes back to the facade, which asks and calls again.
      if (error instanceof ConfirmInterrupt) throw error;
      const runtimeError = fromThrown(error);
      errorCode = runtimeError.code;
      payload = { ok: false, plugin: prefix, ...(target ? { target } : {}), error: redactor.redactValue(runtimeError.toPayload() satisfies ErrorPayload) };
    }
    if (key !== undefined) {
      if (errorCode === "LOOP_DETECTED") {
        const record = session.loopMemory.get(key);
        if (record) record.count += 1;
      } else rememberOutcome(session, key, errorCode);
    }
    if (repairs.length) payload.repairs = repairs.map((r) => r.message);
    recordCall(session, {
      at: new Date(started).toISOString(),
      operation,
      plugin: prefix,
      ...(target ? { target } : {}),
      outcome: errorCode ?? "ok",
      durationMs: Date.now() - started,
    });
    if (errorCode) log.debug(`${operation} ${prefix}${target ? `/${target}` : ""} failed`, { code: errorCode });
    if (observers.length) {
      const event = { session, operation, plugin: prefix, ...(target ? { target } : {}), outcome: errorCode ?? "ok", startedAt: started, durationMs: Date.now() - started, mutating: facts.mutating, arguments: args };
      for (const observe of observers) {
        try {
          await observe(event);
        } catch (error) {
          log.error(`call observer failed: ${describeThrown(error)}`);
        }
      }
    }
    return { isError: errorCode !== undefined, payload };
  }

  async function invoke(what: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<unknown>, maxChars: number = maxResultChars): Promise<{ result: unknown; truncated?: unknown }> {
    let raw: unknown;
    try {
      raw = await withDeadline(work, timeoutMs, signal, what);
    } catch (error) {
      if (isRuntimeError(error) || error instanceof ConfirmInterrupt) throw error;
      throw fromThrown(error, `${what} failed`);
    }
    return capResult(redactor.redactValue(unwrapResult(raw)), maxChars);
  }

  const discoverContexts = createDiscoverContexts(async (plugin, name, args) => {
    const skill = plugin.skills.find((s) => s.name === name);
    if (!skill) throw new RuntimeError("UNKNOWN_SKILL", `discoverContext names skill '${name}', which plugin '${plugin.manifest.prefix}' does not have`);
    // The same gate as run_skill without confirm: a context skill may read, never write.
    const adapter = gatedForSkill(plugin, name, false);
    return (await invoke(`skill '${plugin.manifest.prefix}:${name}' (discover context)`, undefined, (signal) => skill.run(adapter, args, { signal, sessionId: "discover-context", log }))).result;
  });

  const runtime: Runtime = {
    plugins,
    failures,
    replaced,
    brokenLinks,
    index,
    log,
    facadeMode,
    configFile: config?.file,
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
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(listings), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
        clearTimeout(timer);
      }
    },

    help(prefix, session) {
      const pkg = packageJson();
      const statusOf = (s: PluginSummary): string => pluginStatus(byPrefix.get(s.prefix) as LoadedPlugin);
      const only = typeof prefix === "string" && prefix.trim() ? prefix.trim() : undefined;
      if (only !== undefined && byPrefix.has(only) && mayUsePlugin(session?.identity, only)) return { server: `${pkg.name} ${pkg.version}`, plugin: pluginHelp(byPrefix.get(only) as LoadedPlugin) };
      return {
        ...(only !== undefined ? { note: `no plugin has prefix '${only}'${closestNames(only, [...byPrefix.keys()]).map((c, n) => `${n ? " or" : "; did you mean"} '${c}'`).join("")}; every plugin is listed below` } : {}),
        server: `${pkg.name} ${pkg.version}`,
        protocol: facadeMode === "compact" ? COMPACT_PROTOCOL : [
          "Each plugin wraps one service. Its tools are not listed up front: find them first.",
          "0. agent_tools_search({query}) — one ranked answer across every plugin, each hit with the exact call to make next.",
          "1. agent_tools_<prefix>_discover({query}) — a few words of what you need; answers tool and skill names with their parameters (* = required).",
          "2. agent_tools_<prefix>_call({toolName, arguments}) — arguments are checked against the tool's schema; tools that change data also need confirm: true.",
          "3. agent_tools_<prefix>_run_skill({skill, arguments}) — a server-side recipe that makes several calls in one.",
          "Errors carry a code and a hint saying how to fix the call; follow the hint instead of retrying unchanged.",
        ],
        pluginHelp: `agent_tools_help {"plugin":"<prefix>"} shows one plugin in full: its usage hint and every skill`,
        config: runtime.configSource,
        plugins: runtime.summaries().filter((s) => mayUsePlugin(session?.identity, s.prefix)).map((s) => ({
          prefix: s.prefix,
          description: oneLine(s.description) || s.name,
          status: statusOf(s),
          ...(s.requireConfirm ? {} : { confirm: "not required: this plugin's calls run without confirmation" }),
          ...(s.skills.length ? { skills: s.skills } : {}),
        })),
        // A bundled plugin the user's own replaced: said once here, so a missing tool is explained.
        ...(replaced.length ? { notices: replaced.map((r) => r.notice) } : {}),
        ...(failures.length || brokenLinks.length
          ? {
              problems: [
                ...failures.map((f) => f.error),
                ...brokenLinks.map((l) => `skill ${l.from}: related link '${l.target}' does not resolve (${l.reason})`),
              ],
            }
          : {}),
      };
    },

    async discover(session, prefix, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args = isPlainObject(rawArgs) ? rawArgs : {};
      const query = queryOf(args.query, repairs);
      const limitArg = positiveInt(String(args.limit ?? ""));
      return operate(session, "discover", prefix, repairs, undefined, query || undefined, async () => {
        const plugin = requirePlugin(prefix, repairs, session.identity);
        const tools = await toolsOf(plugin);
        const totals = { tools: tools.length, skills: plugin.skills.length };
        let matches: Record<string, unknown>[];
        let total: number;
        const limit = Math.min(limitArg ?? DEFAULT_DISCOVER_LIMIT, MAX_DISCOVER_LIMIT);
        const short = { descriptionChars: SEARCH_DESCRIPTION_CHARS };
        if (query) {
          await index.prepare?.(query);
          const found = rankedEntries(query, limit, { plugin: prefix, usable: () => true, ...short });
          total = found.total;
          matches = found.entries;
        } else {
          // Without a query: skills first (they do the most per call), then read-only tools, then the rest.
          const ordered = [
            ...plugin.skills.map((s) => describeSkill(plugin, s, short)),
            ...tools.filter((t) => isReadOnly(plugin, t)).map((t) => describeTool(plugin, t, short)),
            ...tools.filter((t) => !isReadOnly(plugin, t)).map((t) => describeTool(plugin, t, short)),
          ];
          total = ordered.length;
          matches = ordered.slice(0, limit);
        }
        const answer: Record<string, unknown> = { plugin: prefix, ...(query ? { query } : {}), shown: matches.length, total, totals, matches };
        if (matches.length < total) answer.more = `${total - matches.length} more; ${query ? "refine the query or raise" : "pass a query or raise"} 'limit' (max ${MAX_DISCOVER_LIMIT})`;
        if (query && total === 0) answer.note = `nothing in '${prefix}' matches '${query}'; try other words, or call without a query to list the tools`;
        if (!plugin.manifest.requireConfirm) answer.confirm = "not required: this plugin's calls run without confirmation";
        // The whole hint, once a session: tools/list carries only its first sentence, and the
        // rest (usage rules, which skill instead of which tool) costs only when the agent looks.
        const hint = plugin.manifest.discoverHint;
        if (hint && firstLookAt(session, plugin.manifest.prefix)) answer.hint = hint;
        const declaredContext = discoverContexts.get(plugin);
        if (declaredContext) {
          try {
            answer.context = await declaredContext;
          } catch (error) {
            answer.contextError = describeThrown(error);
          }
        } else if (plugin.adapter.discoverContext) {
          try {
            answer.context = await plugin.adapter.discoverContext();
          } catch (error) {
            answer.contextError = describeThrown(error);
          }
        }
        return answer;
      });
    },

    async search(session, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args: SearchArgs = isPlainObject(rawArgs) ? rawArgs : {};
      const query = queryOf(args.query, repairs);
      return operate(session, "search", "*", repairs, undefined, query || undefined, async () => {
        if (!query) {
          throw new RuntimeError("ARG_VALIDATION_FAILED", "'query' is missing: say in a few words what you want to do, e.g. {\"query\": \"list open issues\"}", {
            errors: [{ path: "/query", message: "must be a non-empty string" }],
          });
        }
        const only = typeof args.plugin === "string" && args.plugin ? requirePlugin(args.plugin, repairs, session.identity).manifest.prefix : undefined;
        const limit = Math.min(positiveInt(String(args.limit ?? "")) ?? DEFAULT_DISCOVER_LIMIT, MAX_DISCOVER_LIMIT);
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
        let waited: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(listings), new Promise<void>((resolve) => (waited = setTimeout(resolve, SEARCH_LISTING_WAIT_MS)))]);
        clearTimeout(waited);
        const unavailable: Record<string, string> = {};
        outcomes.forEach((outcome, i) => {
          const prefix = unlisted[i]!.manifest.prefix;
          if (outcome === undefined) unavailable[prefix] = `still listing its tools after ${SEARCH_LISTING_WAIT_MS} ms; search again shortly, or use agent_tools_${prefix}_discover`;
          else if (outcome.status === "rejected" && unlisted[i]!.configured) unavailable[prefix] = describeThrown(outcome.reason);
        });
        const usable = new Set([...wanted, ...plugins.filter((p) => !p.configured && allowed(p) && (only === undefined || p.manifest.prefix === only))].map((p) => p.manifest.prefix));
        await index.prepare?.(query);
        const found = rankedEntries(query, limit, {
          ...(only !== undefined ? { plugin: only } : {}),
          usable: (prefix) => usable.has(prefix),
          withPlugin: true,
          identity: session.identity,
          detail: args.detail === true,
          descriptionChars: SEARCH_DESCRIPTION_CHARS,
        });
        const notConfigured = plugins.filter((p) => !p.configured && allowed(p)).map((p) => p.manifest.prefix);
        const notice = index.takeNotice?.();
        // Which server each hit comes from, said once per server (a task often needs several).
        const servers: Record<string, string> = {};
        for (const entry of found.entries) {
          const prefix = String(entry.plugin);
          const plugin = byPrefix.get(prefix);
          if (plugin && !(prefix in servers)) servers[prefix] = oneLine(abouts.get(prefix) ?? plugin.manifest.description, SERVER_ABOUT_CHARS) || plugin.manifest.name;
        }
        const answer = searchAnswer({ query, limit, max: MAX_DISCOVER_LIMIT, ...found, servers, unavailable, notConfigured, mode: facadeMode, ...(notice ? { notice } : {}) });
        // An explicit `detail: true` asked for schemas (still under the result cap); every other answer is kept short.
        if (args.detail !== true) return fitToBudget(answer);
        const cap = ctx.maxResultChars ?? maxResultChars;
        if (JSON.stringify(answer).length <= cap) return answer;
        return { ...(await fitToBudget(answer)), note: `with every schema the answer was over ${cap} characters; these are the hits that fit — ask with a smaller limit for the rest` };
      });
    },

    async call(session, prefix, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args = repairRequest(rawArgs, "toolName", repairs);
      const sentName = typeof args.toolName === "string" ? args.toolName.trim() : undefined;
      const toolArgs = args.arguments === undefined || args.arguments === null ? {} : args.arguments;
      const loopTarget = { toolName: args.toolName, arguments: toolArgs, confirm: args.confirm };
      return operate(session, "call", prefix, repairs, loopTarget, sentName, async (facts) => {
        const plugin = requirePlugin(prefix, repairs, session.identity);
        if (!sentName) {
          throw new RuntimeError("MISSING_TOOL_NAME", `'toolName' is ${args.toolName === undefined ? "missing" : "not a non-empty string"}: name the tool of plugin '${prefix}' to call`, {
            received: Object.keys(args),
          });
        }
        const tools = await toolsOf(plugin);
        const byName = new Map(tools.map((t) => [t.name, t]));
        let tool = byName.get(sentName);
        if (!tool) {
          const stripped = stripToolPrefix(sentName, prefix, (n) => byName.has(n), repairs);
          const alike = stripped ?? tools.find((t) => similarity(t.name, sentName) === 1)?.name;
          if (alike && !stripped) repairs.push({ kind: "matched-tool-case", message: `tool name '${sentName}' was matched to '${alike}'` });
          if (alike) tool = byName.get(alike);
        }
        if (!tool) {
          const suggestions = closestNames(sentName, byName.keys());
          for (const hit of index.search(sentName, { plugin: prefix, limit: 3 }).hits) {
            if (hit.kind === "tool" && !suggestions.includes(hit.name) && suggestions.length < 5) suggestions.push(hit.name);
          }
          const mean = suggestions.length ? `; did you mean ${suggestions.map((s) => `'${s}'`).join(" or ")}?` : "";
          throw new RuntimeError("UNKNOWN_TOOL", `plugin '${prefix}' has no tool '${sentName}'${mean}`, { toolName: sentName, suggestions });
        }
        facts.mutating = !isReadOnly(plugin, tool);
        if (facts.mutating && session.identity && !session.identity.write) throw forbiddenWrite(session.identity, prefix, `'${tool.name}'`);
        if (!isPlainObject(toolArgs)) {
          throw new RuntimeError("ARG_VALIDATION_FAILED", `'arguments' must be an object of the tool's parameters, not ${Array.isArray(toolArgs) ? "an array" : typeof toolArgs}`, {
            tool: tool.name,
            errors: [{ path: "", message: "must be object" }],
            schema: tool.inputSchema,
          });
        }
        const checked = checkAgainstSchema(tool.inputSchema, toolArgs);
        if (checked.ok === false) {
          const list = checked.violations.map((v) => v.message).join("; ");
          throw new RuntimeError("ARG_VALIDATION_FAILED", `arguments for '${tool.name}' are invalid: ${list}`, {
            tool: tool.name,
            errors: checked.violations.map(({ path, message }) => ({ path, message })),
            schema: tool.inputSchema,
          });
        }
        if (checked.ok === "skipped") log.warn(`tool ${prefix}/${tool.name} has a schema that cannot be compiled; arguments not validated`, { reason: checked.reason });
        if (needsConfirm(plugin, tool)) {
          const refusal = (): RuntimeError => new RuntimeError("CONFIRM_REQUIRED", `'${(tool as ToolDescriptor).name}' changes data and needs confirm: true`, { tool: (tool as ToolDescriptor).name, arguments: toolArgs });
          await passConfirmGate(plugin, { plugin: prefix, tool: tool.name, arguments: toolArgs }, args.confirm === true, ctx.confirmer, refusal);
        }
        const name = tool.name;
        const { result, truncated } = await invoke(`tool '${prefix}/${name}'`, ctx.signal, (signal) =>
          plugin.adapter.call(name, toolArgs, { signal, sessionId: session.id, log, jobs: jobsOf(session, prefix), ...(ctx.relay ? { relay: ctx.relay } : {}) }),
          ctx.maxResultChars,
        );
        answered.add(prefix);
        return { plugin: prefix, toolName: name, result, ...(truncated ? { truncated } : {}) };
      }, toolArgs);
    },

    async runSkill(session, prefix, rawArgs, ctx = {}) {
      const repairs = [...(ctx.repairs ?? [])];
      const args = repairRequest(rawArgs, "skill", repairs);
      const sentName = typeof args.skill === "string" ? args.skill.trim() : "";
      const sentArgs = args.arguments === undefined || args.arguments === null ? {} : args.arguments;
      return operate(session, "run_skill", prefix, repairs, { skill: args.skill, arguments: sentArgs, confirm: args.confirm }, sentName || undefined, async (facts) => {
        const plugin = requirePlugin(prefix, repairs, session.identity);
        const names = plugin.skills.map((s) => s.name);
        let skill = plugin.skills.find((s) => s.name === sentName);
        if (!skill && sentName) {
          const stripped = stripToolPrefix(sentName, prefix, (n) => names.includes(n), repairs);
          skill = plugin.skills.find((s) => s.name === stripped) ?? plugin.skills.find((s) => similarity(s.name, sentName) === 1);
        }
        if (!skill) {
          const suggestions = sentName ? closestNames(sentName, names) : [];
          const what = sentName ? `plugin '${prefix}' has no skill '${sentName}'` : "'skill' is missing";
          const mean = suggestions.length ? `; did you mean ${suggestions.map((s) => `'${s}'`).join(" or ")}?` : "";
          throw new RuntimeError("UNKNOWN_SKILL", `${what}${mean}`, {
            skills: plugin.skills.map((s) => ({ name: s.name, description: oneLine(s.meta.description) })),
            suggestions,
          });
        }
        if (!isPlainObject(sentArgs)) {
          throw new RuntimeError("ARG_VALIDATION_FAILED", `'arguments' must be an object, not ${Array.isArray(sentArgs) ? "an array" : typeof sentArgs}`, {
            skill: skill.name,
            errors: [{ path: "", message: "must be object" }],
          });
        }
        // Confirm is asked once. Original-runtime skills read `confirm` from their own arguments,
        // so either place counts for both: the gate, and the skill's own check.
        const schema = isSchemaLike(skill.meta.args) ? skill.meta.args : undefined;
        const ownsConfirm = !schema || (isPlainObject(schema.properties) && "confirm" in schema.properties);
        let confirmed = args.confirm === true;
        let skillArgs: Record<string, unknown> = sentArgs;
        if (!confirmed && skillArgs.confirm === true) {
          confirmed = true;
          repairs.push({ kind: "moved-confirm", message: "'confirm' was inside 'arguments'; it was read as the run's confirm" });
          if (!ownsConfirm) {
            const { confirm: _moved, ...rest } = skillArgs;
            skillArgs = rest;
          }
        } else if (confirmed && ownsConfirm && skillArgs.confirm === undefined) {
          skillArgs = { ...skillArgs, confirm: true };
        }
        const runArgs = skillArgs;
        if (schema) {
          const checked = checkAgainstSchema(schema, runArgs);
          if (checked.ok === false) {
            throw new RuntimeError("ARG_VALIDATION_FAILED", `arguments for skill '${skill.name}' are invalid: ${checked.violations.map((v) => v.message).join("; ")}`, {
              skill: skill.name,
              errors: checked.violations.map(({ path, message }) => ({ path, message })),
              schema,
            });
          }
        }
        const chosen = skill;
        const refusals: RuntimeError[] = [];
        const interrupts: ConfirmInterrupt[] = [];
        const { result, truncated } = await invoke(
          `skill '${prefix}:${chosen.name}'`,
          ctx.signal,
          async (signal) => {
            const answer = await chosen.run(gatedForSkill(plugin, chosen.name, confirmed, refusals, { identity: session.identity, facts }, { confirmer: ctx.confirmer, interrupts, skillArguments: runArgs }), runArgs, {
              signal,
              sessionId: session.id,
              log,
              jobs: jobsOf(session, prefix),
              confirmed: confirmed || !plugin.manifest.requireConfirm,
            });
            // The user has a question to answer first (reads before it are run again on the retry).
            const pending = interrupts[0];
            if (pending) throw pending;
            // The gate refused a write and the skill caught it: the run did not do what was asked.
            const refused = refusals[0];
            if (refused) throw new RuntimeError(refused.code, refused.message, { ...refused.details, skillResult: answer });
            const failed = skillReportedFailure(chosen.name, answer);
            if (failed) throw failed;
            return answer;
          },
          ctx.maxResultChars,
        );
        return { plugin: prefix, skill: chosen.name, result, ...(truncated ? { truncated } : {}) };
      }, sentArgs);
    },

    onToolsChanged(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },

    async close() {
      changeListeners.clear();
      upkeep?.stop();
      catalog.close();
      await Promise.allSettled(plugins.map(async (p) => p.adapter?.close?.()));
      await catalog.flush();
      if (ownState) await state.close();
    },
  };
  return runtime;
}
