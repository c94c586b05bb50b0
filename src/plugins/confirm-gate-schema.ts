import { Type } from "@sinclair/typebox";

/**
 * The confirm gate's own overrides, described once for both places a server is wrapped: a
 * plugin.json (manifest-schema.ts) and an `mcpServers` entry of the config (config/schema.ts), so
 * either file takes the same values and says the same thing of a wrong one. What they mean is
 * runtime/write-reason.ts's; confirm-gate-settings.ts reads them into the manifest.
 */
export const confirmGateSchema = {
  /** Tools that always need confirm, whatever the server's annotations say (kite's eval_js runs any script). */
  confirmTools: Type.Optional(Type.Array(Type.String({ minLength: 1, problem: "must be a non-empty string" }), { problem: "must be an array of names" })),
  /** false: the server's own readOnlyHint does not lift the confirm gate (a server you do not trust to say). */
  trustReadOnlyHints: Type.Optional(Type.Boolean({ problem: "must be true or false" })),
};
