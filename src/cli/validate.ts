import { createRuntime, type RuntimeOptions } from "../runtime/runtime.js";
import { silentLogger } from "../log.js";
import { firstUseProblems } from "../plugins/first-use-check.js";
import { literalTypoNotices } from "../plugins/literal-typos.js";
import { CATALOG_IN_MANIFEST, type LoadedPlugin } from "../plugins/loader.js";
import { adapterBlockError } from "../plugins/manifest.js";
import { unknownListedTools } from "../plugins/manifest-references.js";
import { describeMissing } from "../plugins/requirements.js";
import { sharedStateOrProblem } from "../state/index.js";
import { identityPluginFindings } from "../gateway/identity-notices.js";

/**
 * `agent-tools validate`: load every plugin as the server would and report what is wrong —
 * plugin folders (AGENT_TOOLS_PLUGINS_DIR, `plugins.dirs`) that are not there, `plugins.disable`
 * names that match no plugin, team identities' `plugins` entries that match no plugin's prefix,
 * manifests that do not load, adapters that cannot be built, skills
 * that fail, related links that do not resolve, and what would fail a plugin's first use
 * (first-use-check.ts: a REST base URL the calls refuse, a stdio server's missing command or cwd).
 * Exit 1 when anything is wrong, listing each problem. A missing folder is a problem, not a
 * notice: the plugins the user meant to add were not loaded, which is what a manifest that does
 * not load means too; likewise a disable typo leaves on the plugin the user meant to turn off.
 *
 * Every configured plugin's adapter is built as its first use would build it (the server defers
 * that until then): no catalog store is used, so none is deferred and a broken one is a load
 * failure now. Building starts no MCP server and calls nothing; a module adapter's own code runs.
 */
export interface ValidationReport {
  ok: boolean;
  /** `status` says why a plugin is not configured (what to set or install), as agent_tools_help does. */
  plugins: { prefix: string; name: string; configured: boolean; status?: string; skills: number }[];
  problems: string[];
  /** Not problems: a bundled plugin the user's own replaced, a config entry that starts this runtime (skipped). */
  notices?: string[];
}

export async function validatePlugins(options: RuntimeOptions = {}): Promise<ValidationReport> {
  const env = options.env ?? process.env;
  const log = options.log ?? silentLogger;
  // A state setting the server would refuse to start with is a problem here, with the rest checked.
  const made = options.state ? { state: options.state } : await sharedStateOrProblem({ env, log, ...(options.config?.team ? { settings: options.config.team } : {}) });
  const runtime = await createRuntime({ ...options, state: made.state, catalogCache: false, log });
  try {
    // No session: the host's own CLI sees every problem.
    const problems = [...runtime.problems(), ...(made.problem ? [made.problem] : [])];
    // An identity's plugin entry that matches no prefix (a typo, a name, another case) leaves it
    // seeing less than meant, silently: a problem here; `[]` may be meant, and is a notice.
    const identities = identityPluginFindings(options.config?.team?.identities, runtime.plugins.map((p) => p.manifest.prefix));
    problems.push(...identities.filter((f) => f.kind === "unmatched").map((f) => f.line));
    for (const { manifest, configured } of runtime.plugins) {
      // A config entry's bare command is its requires.bins, so a typo ("nodee") leaves it "not
      // configured"; but the entry exists only to run that command: checked as a problem at its
      // position too. A plugin.json's requires (a bundled plugin's `gh`) stays a status.
      if ((!configured && manifest.form !== "config") || typeof manifest.adapter !== "object") continue;
      const found = firstUseProblems(manifest.adapter, manifest.dir, env, manifest.requires.env);
      if (found.length) problems.push(...adapterBlockError(manifest, found).message.split("\n"));
    }
    // The config's own notices (settings of other clients it ignored) too: validate is where a
    // user checks an imported file, and these change what the server does.
    const notices = [...(options.config?.notices ?? []), ...runtime.notices(), ...literalTypoLines(runtime.plugins, env), ...identities.filter((f) => f.kind === "empty").map((f) => f.line), ...(await unknownToolNotices(runtime.plugins))];
    return {
      ok: problems.length === 0,
      plugins: runtime.plugins.map((p) => ({
        prefix: p.manifest.prefix,
        name: p.manifest.name,
        configured: p.configured,
        ...(p.configured ? {} : { status: `not configured: ${describeMissing(p.missing)}` }),
        skills: p.skills.length,
      })),
      problems,
      ...(notices.length ? { notices } : {}),
    };
  } finally {
    await runtime.close();
    if (!options.state) await made.state.close();
  }
}

/** Each plugin's settings that are sent literally but were surely meant as `${VAR}` or `{name}` (literal-typos.ts), at their positions. */
function literalTypoLines(plugins: readonly LoadedPlugin[], env: NodeJS.ProcessEnv): string[] {
  return plugins.flatMap(({ manifest }) => {
    if (typeof manifest.adapter !== "object") return [];
    const found = literalTypoNotices(manifest.adapter, env);
    return found.length ? adapterBlockError(manifest, found).message.split("\n") : [];
  });
}

/**
 * Names in `readonlyTools`/`confirmTools` that a plugin's catalog lacks, for the kinds whose
 * catalog is data in the manifest (listing starts nothing and sends nothing). A notice, not a
 * problem: the plugin works, the name just matches nothing. An MCP server's or a module's catalog
 * is said on the server's first listing of it instead (catalog.ts), since listing it here would
 * start the server or run the module's code.
 */
async function unknownToolNotices(plugins: readonly LoadedPlugin[]): Promise<string[]> {
  const notices: string[] = [];
  for (const plugin of plugins) {
    const { manifest } = plugin;
    if (typeof manifest.adapter !== "object" || !CATALOG_IN_MANIFEST.has(manifest.adapter.kind)) continue;
    if (!manifest.readonlyTools.length && !manifest.confirmTools?.length) continue;
    const lister = plugin.configured ? plugin.adapter : plugin.catalogOnly;
    // A catalog that cannot be read is reported already (the adapter failed to build); nothing to compare.
    const listed = await lister?.listTools().catch(() => undefined);
    if (!listed) continue;
    const line = unknownListedTools(manifest, listed.tools.map((tool) => tool.name));
    if (line) notices.push(line);
  }
  return notices;
}
