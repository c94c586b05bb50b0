import path from "node:path";
import type { Redactor } from "../adapters/shared/redact.js";
import type { Adapter, AdapterOptions, Logger } from "../adapters/types.js";
import type { SharedTokenState } from "../adapters/mcp/oauth-token-store.js";
import { MANIFEST_FILE } from "./discovery.js";
import { AdapterSpecError } from "../adapters/shared/errors.js";
import { RuntimeError } from "../errors.js";
import { AdapterBlockError, adapterBlockError, ManifestError, readManifest, settingsOf, type DeclarativeAdapterSpec, type PluginManifest } from "./manifest.js";
import { deferredAdapter } from "./deferred-adapter.js";
import { manifestReferenceProblems } from "./manifest-references.js";
import { loadModuleAdapter } from "./module-adapter.js";
import { missingRequirements, type MissingRequirements } from "./requirements.js";
import { commandPath, searchedPath } from "./command-path.js";
import { loadSkills, type Skill, type SkillLoadFailure } from "./skills.js";
import { importFailureWithTip } from "./syntax-error-tip.js";

/** Builds an adapter from a declarative `adapter` block of one kind ("mcp", "rest", ...). */
export type DeclarativeAdapterFactory = (spec: DeclarativeAdapterSpec, options: AdapterOptions) => Adapter | Promise<Adapter>;

export interface LoadedPlugin {
  manifest: PluginManifest;
  /** Absent when the plugin is not configured: its requirements are missing on this host. */
  adapter: Adapter | undefined;
  skills: Skill[];
  missing: MissingRequirements;
  configured: boolean;
  /**
   * An unconfigured plugin whose tools are described in its manifest (rest, openapi, cli blocks)
   * still has a catalog: this adapter lists it (never calls), so search finds its tools marked
   * not configured, with what to set. Credentials are read at call time, not to list.
   */
  catalogOnly?: Pick<Adapter, "listTools">;
  /**
   * Why its adapter (built on first use) could not be built, the last time it was tried; cleared
   * once it is built. Listed under the fleet's problems, as a plugin that failed to load is.
   */
  buildFailure?: string;
  /**
   * Its skill files that did not load (their problems masked): a run of one by name answers why,
   * not that the plugin has no such skill (pipeline.ts).
   */
  failedSkills?: SkillLoadFailure[];
}

export interface PluginLoadFailure {
  /** The plugin folder or manifest that failed. */
  location: string;
  name?: string;
  prefix?: string;
  /** A skill that failed inside an otherwise loaded plugin. */
  skill?: string;
  error: string;
  /** A manifest's several problems (ManifestError), one a line, each saying where: listed one by one in `problems`. */
  lines?: string[];
}

export interface LoadOptions {
  env: NodeJS.ProcessEnv;
  log: Logger;
  /**
   * The runtime's redactor, handed to every adapter. Every failure recorded here (and each line
   * logged of one) passes through it: a plugin's error text is its code's, and may hold a credential.
   */
  redactor?: Redactor;
  /**
   * The secret values a manifest resolves on this host (redaction.ts), given to the redactor as
   * soon as the manifest is read, before the plugin's code loads and can fail with them in its error.
   */
  secretsOf?: (manifest: PluginManifest) => Iterable<string>;
  /** The deadline of each import of plugin code, a skill file or a module adapter (import-deadline.ts). */
  importTimeoutMs?: number;
  adapterKinds?: Readonly<Record<string, DeclarativeAdapterFactory>>;
  /** Handed to adapters (AdapterOptions.shared). */
  shared?: SharedTokenState;
  /**
   * Whether a configured plugin's adapter may wait for its first use (deferred-adapter.ts): the
   * runtime says yes when catalogs persist (a stored one answers until then, and one not stored
   * yet is listed in the background soon after start). Otherwise every adapter is built while
   * loading, and a broken one is a load failure.
   */
  deferAdapter?: (manifest: PluginManifest) => boolean | Promise<boolean>;
  /** Told when a deferred adapter has been built (the plugin's `adapter` is then the built one). */
  onAdapterBuilt?: (plugin: LoadedPlugin) => void;
}

/** A bundled plugin left out because one of the user's own plugins or config entries has its prefix. */
export interface ReplacedPlugin {
  prefix: string;
  /** The bundled plugin's manifest (or the embedded default's origin). */
  bundled: string;
  /** Where the plugin that won comes from: its plugin.json, or the config file. */
  by: string;
  byName: string;
  /** One line for help and validate. */
  notice: string;
}

/**
 * The factory of a declarative block's kind. An unknown kind (a typo, or a kind this runtime does
 * not have) is a problem of the manifest, placed at its line and column and naming the kinds there are.
 */
function kindFactory(manifest: PluginManifest, kind: string, options: LoadOptions): DeclarativeAdapterFactory {
  const kinds = options.adapterKinds ?? {};
  const factory = kinds[kind];
  if (factory) return factory;
  const known = Object.keys(kinds).sort().join(", ") || "none";
  throw adapterBlockError(manifest, [{ field: "kind", message: `'${kind}' is not a known adapter kind; use one of: ${known}` }]);
}

/**
 * Why a module adapter did not load, in the plugin author's terms: a module that is not there is
 * named by its path (not by the runtime file that imported it), and a syntax error says how to
 * find its line (Node's message has none).
 */
function moduleFailure(error: unknown, file: string): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === "ERR_MODULE_NOT_FOUND" && message.includes(`'${file}'`)) return `${file} does not exist`;
  return importFailureWithTip(error, file) ?? message;
}

async function createAdapter(manifest: PluginManifest, options: LoadOptions): Promise<Adapter> {
  // The prefix and name are the plugin's own (a config entry's raw block has neither): adapters
  // name the plugin in their messages ("MCP server 'prod_db'"), never their kind.
  const adapterOptions: AdapterOptions = {
    pluginDir: manifest.dir,
    manifest: { ...manifest.raw, prefix: manifest.prefix, name: manifest.name },
    env: options.env,
    log: options.log,
    settings: settingsOf(manifest),
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(options.shared ? { shared: options.shared } : {}),
  };
  if (typeof manifest.adapter === "string") {
    try {
      return await loadModuleAdapter(manifest.adapter, manifest.adapterExport, adapterOptions, options.importTimeoutMs);
    } catch (error) {
      throw new ManifestError(manifest.file, "adapter", `could not be loaded from '${manifest.adapter}': ${moduleFailure(error, path.resolve(manifest.dir, manifest.adapter))}`);
    }
  }
  const factory = kindFactory(manifest, manifest.adapter.kind, options);
  try {
    return await factory(manifest.adapter, adapterOptions);
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    if (error instanceof AdapterSpecError) throw adapterBlockError(manifest, error.problems);
    // Not the block's problem (a service it reads could not be reached, the factory's own error):
    // kept as the cause, whose code a use answers (adapterBuildError).
    throw new ManifestError(manifest.file, "adapter", (error as Error).message, { cause: error });
  }
}

/** A plugin folder (holding plugin.json), or a manifest made in code (e.g. from a config entry). */
export type PluginSource = string | PluginManifest;

/** Load one plugin. Throws ManifestError (or Error) when the plugin cannot be used at all. */
export async function loadPlugin(source: PluginSource, options: LoadOptions): Promise<{ plugin: LoadedPlugin; skillFailures: SkillLoadFailure[] }> {
  const manifest = typeof source === "string" ? await readManifest(path.join(source, MANIFEST_FILE)) : source;
  for (const secret of options.secretsOf?.(manifest) ?? []) options.redactor?.add(secret);
  // A stdio server's command is looked up on the PATH the server will get (its env's, when set).
  const search = commandPath(manifest.adapter, options.env);
  const missing = missingRequirements(manifest.requires, options.env, search.written === undefined ? undefined : { env: search.env, words: searchedPath(search) });
  const configured = missing.env.length === 0 && missing.bins.length === 0;
  // A plugin that is not configured is still listed; its adapter is not built, because adapters
  // commonly read their credentials in the constructor and would fail for the wrong reason.
  const plugin: LoadedPlugin = { manifest, adapter: undefined, skills: [], missing, configured };
  // Known or not is known without building: said now, configured or not, deferred or not (given
  // the kinds: a caller that gives none builds no declarative adapter).
  if (typeof manifest.adapter === "object" && options.adapterKinds) kindFactory(manifest, manifest.adapter.kind, options);
  if (configured && (await options.deferAdapter?.(manifest))) {
    const onBuilt = (adapter: Adapter) => {
      delete plugin.buildFailure;
      plugin.adapter = adapter;
      options.onAdapterBuilt?.(plugin);
    };
    // Said as loudly as a plugin that fails to load: the first use (often the background listing
    // a second after start) is where a broken adapter shows now. The use itself fails with it. A
    // failed build is retried by the next use: the same reason is said once, not at every use.
    let said: string | undefined;
    const build = () =>
      createAdapter(manifest, options).catch((error: unknown) => {
        const line = redacted(options, `plugin '${manifest.prefix}' cannot be used: ${(error as Error).message}`);
        if (line !== said) options.log.error(line);
        said = line;
        plugin.buildFailure = line;
        throw adapterBuildError(manifest, redacted(options, (error as Error).message), error);
      });
    plugin.adapter = deferredAdapter(build, onBuilt, { mayHaveDiscoverContext: typeof manifest.adapter === "string" });
  } else if (configured) plugin.adapter = await createAdapter(manifest, options);
  let loaded: Awaited<ReturnType<typeof loadSkills>>;
  try {
    loaded = await loadSkills(manifest.dir, manifest.skills, { importTimeoutMs: options.importTimeoutMs });
  } catch (error) {
    throw new ManifestError(manifest.file, "skills", (error as Error).message);
  }
  // Not said here: the runtime says it once for all plugins (startup-notices.ts).
  plugin.skills = loaded.skills;
  if (loaded.failures.length) plugin.failedSkills = loaded.failures.map((failure) => ({ ...failure, error: redacted(options, failure.error) }));
  const catalogOnly = configured ? undefined : catalogWithoutCredentials(manifest, options);
  if (catalogOnly) plugin.catalogOnly = catalogOnly;
  return { plugin, skillFailures: loaded.failures };
}

/**
 * What a use of a plugin whose adapter could not be built answers: the plugin's code (or its
 * manifest) is at fault, not the call, so the hint says who can fix it rather than to change
 * the arguments or blame the service.
 */
function adapterBuildError(manifest: PluginManifest, message: string, cause: unknown): RuntimeError {
  const where = typeof manifest.adapter === "string" ? `its adapter module (${path.join(manifest.dir, manifest.adapter)})` : `its adapter block in ${manifest.file}`;
  // An adapter block's own problem found at the build (checked at first use) is the
  // configuration's: NOT_CONFIGURED, with its hint (fix the manifest, `agent-tools validate`).
  if (cause instanceof AdapterBlockError) return new RuntimeError(cause.code, message, undefined, cause.hint, { cause });
  // A factory that says what went wrong in the project's terms (a spec URL that could not be
  // fetched: UPSTREAM_ERROR, retry later) is answered so; a retry of it builds again.
  const own = cause instanceof ManifestError ? cause.cause : undefined;
  if (own instanceof RuntimeError) return new RuntimeError(own.code, message, own.details, own.hint, { cause });
  return new RuntimeError(
    "UPSTREAM_ERROR",
    message,
    undefined,
    `Plugin '${manifest.prefix}' is broken: ${where} could not be built, so none of its tools can run. No arguments or retry can fix this: tell the user that its author or operator must fix what \`message\` names; meanwhile do the work another way.`,
    { cause },
  );
}

/** A line about a plugin's failure, its credentials masked. */
function redacted(options: Pick<LoadOptions, "redactor">, line: string): string {
  return options.redactor ? options.redactor.redact(line) : line;
}

/** Kinds whose tool list is data in the manifest: listing them starts nothing and sends nothing. */
export const CATALOG_IN_MANIFEST: ReadonlySet<string> = new Set(["rest", "openapi", "cli"]);

/**
 * Built on the first listing (a search), not at start: the kind's code is loaded only then. One
 * that cannot be built lists nothing (said at debug level) and the plugin is still shown from its
 * manifest as not configured.
 */
function catalogWithoutCredentials(manifest: PluginManifest, options: LoadOptions): Pick<Adapter, "listTools"> | undefined {
  if (typeof manifest.adapter === "string" || !CATALOG_IN_MANIFEST.has(manifest.adapter.kind)) return undefined;
  let adapter: Promise<Adapter> | undefined;
  // Quietly: an adapter built only to list must not warn about what a call would need (gh not on PATH).
  const quiet = { ...options, log: { ...options.log, info: options.log.debug, warn: options.log.debug } };
  return {
    listTools: () =>
      (adapter ??= createAdapter(manifest, quiet).catch((error: unknown) => {
        options.log.debug(redacted(options, `plugin '${manifest.prefix}': its catalog cannot be read before it is configured: ${(error as Error).message}`));
        throw error;
      })).then((built) => built.listTools()),
  };
}

/** A manifest's several problems as the failure's `lines` (the redacted message is split again, so each line is masked like the message). */
function manifestLines(error: unknown): { lines: string[] } | Record<string, never> {
  return error instanceof ManifestError && error.lines ? { lines: [...error.lines] } : {};
}

/**
 * A second plugin with a prefix already taken, named with the one that has it. A config entry has
 * no `prefix` field: its prefix is made from its key, so the fix is another key.
 */
function prefixTaken(manifest: PluginManifest, taken: PluginManifest): ManifestError {
  const holder = taken.entryPath ? `the entry '${taken.name}'${taken.file === manifest.file ? "" : ` of ${taken.file}`}` : `plugin '${taken.name}' (${taken.file})`;
  if (!manifest.entryPath) return new ManifestError(manifest.file, "prefix", `'${manifest.prefix}' is already used by ${holder}; give this plugin another prefix`);
  const entry = `${manifest.entryPath.slice(0, -1).join(".")} entry '${manifest.name}'`;
  return new ManifestError(
    manifest.file,
    undefined,
    `${entry} makes the prefix '${manifest.prefix}' (its key lower-cased, other characters than letters, digits, '_' and '-' made '_'), which ${holder} already has; rename one of the two keys`,
  );
}

/**
 * Load every plugin folder. A broken plugin is reported (stderr and the returned failures) and
 * skipped; it never stops the others. A second plugin claiming a prefix already taken is refused.
 *
 * Plugins of different prefixes load at the same time: a plugin whose code is slow to import (up
 * to its deadline, import-deadline.ts) then delays the start by its own wait once, not by the sum
 * of every slow plugin's. The plugins that claim one prefix still load one after another in the
 * order given, because which of them takes the prefix depends on whether an earlier one loaded.
 * What is returned is in the order of `sources` either way.
 */
export async function loadPlugins(
  sources: readonly PluginSource[],
  options: LoadOptions & { disable?: readonly string[]; isBundled?: (manifest: PluginManifest) => boolean },
): Promise<{ plugins: LoadedPlugin[]; failures: PluginLoadFailure[]; replaced: ReplacedPlugin[]; knownNames: string[] }> {
  const disabled = new Set(options.disable ?? []);
  /** What became of each source, at its index: kept in the order of `sources` whatever finishes first. */
  const outcomes: SourceOutcome[] = sources.map(() => ({ failures: [] }));
  /** The one place a failure is recorded: masked, said once on stderr, and kept for the problems. */
  const fail = (index: number, failure: PluginLoadFailure, logLine: string) => {
    options.log.error(redacted(options, logLine));
    const error = redacted(options, failure.error);
    outcomes[index]!.failures.push({ ...failure, error, ...(failure.lines ? { lines: error.split("\n") } : {}) });
  };
  const locationOf = (source: PluginSource) => (typeof source === "string" ? source : source.file);
  // The manifests first (small files, read together): a disabled plugin's adapter and skills (plugin code) are never loaded.
  const manifests = await Promise.all(
    sources.map((source, index) =>
      (typeof source === "string" ? readManifest(path.join(source, MANIFEST_FILE)) : Promise.resolve(source)).catch((error: unknown) => {
        const message = (error as Error).message;
        fail(index, { location: locationOf(source), error: message, ...manifestLines(error) }, `plugin skipped: ${message}`);
        return undefined;
      }),
    ),
  );
  /** Names and prefixes of every plugin found, disabled ones included: what `disable` may name. */
  const seenNames: string[] = [];
  /** The sources claiming each prefix, in the order given. */
  const claims = new Map<string, number[]>();
  manifests.forEach((manifest, index) => {
    if (!manifest) return;
    seenNames.push(manifest.prefix, manifest.name);
    if (disabled.has(manifest.prefix) || disabled.has(manifest.name)) {
      options.log.debug(`plugin '${manifest.prefix}' is disabled by config`);
      return;
    }
    const claimants = claims.get(manifest.prefix);
    if (claimants) claimants.push(index);
    else claims.set(manifest.prefix, [index]);
  });
  const loadClaimants = async (claimants: number[]) => {
    let taken: LoadedPlugin | undefined;
    for (const index of claimants) {
      const manifest = manifests[index]!;
      const outcome = outcomes[index]!;
      try {
        // Checked before the plugin is loaded: a plugin that will not be used starts nothing.
        if (taken && options.isBundled?.(manifest) && !options.isBundled(taken.manifest)) {
          const by = taken.manifest.form === "config" ? `the config entry '${taken.manifest.name}' (${taken.manifest.file})` : `your plugin '${taken.manifest.name}' (${taken.manifest.file})`;
          const notice = `prefix '${manifest.prefix}': ${by} is used instead of the bundled plugin '${manifest.name}'`;
          options.log.info(notice);
          outcome.replaced = { prefix: manifest.prefix, bundled: manifest.file, by: taken.manifest.file, byName: taken.manifest.name, notice };
          continue;
        }
        if (taken) throw prefixTaken(manifest, taken.manifest);
        const { plugin, skillFailures } = await loadPlugin(manifest, options);
        taken = plugin;
        outcome.plugin = plugin;
        const { prefix, name } = plugin.manifest;
        for (const failure of skillFailures) {
          const message = `skill '${failure.name}' of plugin '${prefix}' failed to load (${failure.file}): ${failure.error}`;
          fail(index, { location: failure.file, name, prefix, skill: failure.name, error: message }, message);
        }
        for (const problem of manifestReferenceProblems(plugin.manifest, plugin.skills)) fail(index, { location: plugin.manifest.file, name, prefix, error: problem }, problem);
      } catch (error) {
        const message = (error as Error).message;
        fail(index, { location: locationOf(sources[index]!), error: message, ...manifestLines(error) }, `plugin skipped: ${message}`);
      }
    }
  };
  await Promise.all([...claims.values()].map(loadClaimants));
  return {
    plugins: outcomes.flatMap((outcome) => (outcome.plugin ? [outcome.plugin] : [])),
    failures: outcomes.flatMap((outcome) => outcome.failures),
    replaced: outcomes.flatMap((outcome) => (outcome.replaced ? [outcome.replaced] : [])),
    knownNames: [...new Set(seenNames)],
  };
}

/** What loading one source came to: the plugin it gave, or the bundled plugin it was replaced as, and its failures. */
interface SourceOutcome {
  plugin?: LoadedPlugin;
  replaced?: ReplacedPlugin;
  failures: PluginLoadFailure[];
}
