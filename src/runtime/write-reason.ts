import type { ToolDescriptor } from "../adapters/types.js";
import type { PluginManifest } from "../plugins/manifest.js";

/**
 * Whether a tool can change data, and why: the one place that decides it (the gate, discover's
 * `writes`, the audit), so a refusal can say the rule that applied rather than a guess.
 * `undefined`: read-only. Otherwise the reason, as CONFIRM_REQUIRED's `details.why` says it: the
 * fact alone ("not marked read-only"), since it is sent on every write attempt; README
 * "Confirmation" explains the rules.
 */
export function writeReason(manifest: Pick<PluginManifest, "confirmTools" | "readonlyTools" | "trustReadOnlyHints">, tool: ToolDescriptor): string | undefined {
  const hinted = tool.annotations?.readOnlyHint === true;
  const listed = manifest.readonlyTools.includes(tool.name);
  // confirmTools wins over both read-only signs: the plugin knows the tool can change data (kite's eval_js runs any script).
  if (manifest.confirmTools?.includes(tool.name)) {
    const despite = [hinted ? "readOnlyHint" : "", listed ? "readonlyTools" : ""].filter(Boolean).join(" and ");
    return `in confirmTools${despite ? ` (despite ${despite})` : ""}`;
  }
  if (listed) return undefined;
  if (hinted && manifest.trustReadOnlyHints === false) return "readOnlyHint not trusted (trustReadOnlyHints: false)";
  // A tool that calls itself both read-only and destructive says nothing usable of itself (a
  // hostile server's "Deletes every row. Safe, read-only."): the gate takes the side that asks.
  if (hinted && tool.annotations?.destructiveHint === true) return "readOnlyHint contradicted by destructiveHint";
  if (hinted) return undefined;
  return "not marked read-only";
}
