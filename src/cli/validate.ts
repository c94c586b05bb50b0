import { createRuntime, type RuntimeOptions } from "../runtime/runtime.js";
import { silentLogger } from "../log.js";

/**
 * `agent-tools validate`: load every plugin as the server would and report what is wrong —
 * plugin folders (AGENT_TOOLS_PLUGINS_DIR, `plugins.dirs`) that are not there, `plugins.disable`
 * names that match no plugin, manifests that do not load, skills that fail, related links that do
 * not resolve. Exit 1 when anything is wrong, listing each problem. A missing folder is a problem,
 * not a notice: the plugins the user meant to add were not loaded, which is what a manifest that
 * does not load means too; likewise a disable typo leaves on the plugin the user meant to turn off.
 */
export interface ValidationReport {
  ok: boolean;
  plugins: { prefix: string; name: string; configured: boolean; skills: number }[];
  problems: string[];
  /** Not problems: a bundled plugin the user's own replaced, a config entry that starts this runtime (skipped). */
  notices?: string[];
}

export async function validatePlugins(options: RuntimeOptions = {}): Promise<ValidationReport> {
  const runtime = await createRuntime({ ...options, log: options.log ?? silentLogger });
  try {
    // No session: the host's own CLI sees every problem.
    const problems = runtime.problems();
    return {
      ok: problems.length === 0,
      plugins: runtime.plugins.map((p) => ({ prefix: p.manifest.prefix, name: p.manifest.name, configured: p.configured, skills: p.skills.length })),
      problems,
      ...(runtime.notices().length ? { notices: runtime.notices() } : {}),
    };
  } finally {
    await runtime.close();
  }
}
