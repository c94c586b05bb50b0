import type { ToolDescriptor } from "../adapters/types.js";
import type { PluginManifest } from "../plugins/manifest.js";

/**
 * Whether a tool can change data, and why: the one place that decides it (the gate, discover's
 * `writes`, the audit), so a refusal can say the rule that applied rather than a guess.
 * `undefined`: read-only. Otherwise the reason, as CONFIRM_REQUIRED's `details.why` says it.
 */
export function writeReason(manifest: Pick<PluginManifest, "confirmTools" | "readonlyTools" | "trustReadOnlyHints">, tool: ToolDescriptor): string | undefined {
  const hinted = tool.annotations?.readOnlyHint === true;
  const listed = manifest.readonlyTools.includes(tool.name);
  // confirmTools wins over both read-only signs: the plugin knows the tool can change data (kite's eval_js runs any script).
  if (manifest.confirmTools?.includes(tool.name)) {
    const despite = [hinted ? "its server marks it readOnlyHint" : "", listed ? "readonlyTools lists it" : ""].filter(Boolean).join(" and ");
    return `the plugin's confirmTools lists it: the plugin asks confirmation for it${despite ? ` although ${despite}` : ""}`;
  }
  if (listed) return undefined;
  if (hinted) return manifest.trustReadOnlyHints === false ? "its server marks it readOnlyHint, but this plugin does not trust its server's hints (trustReadOnlyHints: false) and its readonlyTools does not list it" : undefined;
  return "it is neither in the plugin's readonlyTools nor marked readOnlyHint by its server";
}
