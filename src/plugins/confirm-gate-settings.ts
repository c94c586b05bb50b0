import type { PluginManifest } from "./manifest.js";

/** The confirm gate's overrides as written (confirm-gate-schema.ts), already checked against that schema. */
export interface ConfirmGateFields {
  confirmTools?: unknown;
  trustReadOnlyHints?: unknown;
}

/**
 * The confirm gate's overrides of a plugin.json or an `mcpServers` entry, as the manifest keeps
 * them: one reading for both, so `trustReadOnlyHints: false` means the same in either file. Only
 * `false` is kept: trusting a tool's readOnlyHint is the default (write-reason.ts).
 */
export function confirmGateSettings(fields: ConfirmGateFields): Pick<PluginManifest, "confirmTools" | "trustReadOnlyHints"> {
  return {
    ...(Array.isArray(fields.confirmTools) ? { confirmTools: fields.confirmTools as string[] } : {}),
    ...(fields.trustReadOnlyHints === false ? { trustReadOnlyHints: false } : {}),
  };
}
