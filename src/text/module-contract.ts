import type { Adapter, Logger } from "../adapters/types.js";
import type { CommandOutput, TextCommand } from "./command.js";
import type { EXIT } from "./exit-codes.js";
import type { ModuleLib } from "./module-lib.js";

/**
 * The contract of a text module: a plain ESM file under the runtime's `commands/` folder,
 * loaded into one session's sandbox with `load commands/<name>`. A module is trusted runtime
 * code and runs on the host; it reads its credentials from `host.env` (the server's
 * environment), which the sandbox never sees.
 *
 * ```js
 * export const name = "runtime-demo";                       // required, kebab-case
 * export const description = "One line: what it is for.";   // required
 * export const variables = [                                // the host variables it reads (may be [])
 *   { name: "DEMO_URL", description: "…", required: true },
 *   { name: "DEMO_TOKEN", description: "…", secret: true },
 * ];
 * export const commands = ["runtime-echo"];                 // the command names setup() returns
 * export function missing(env) { return []; }               // optional: unmet settings, for status
 * export function setup(host) {                             // called once per session, at load
 *   return {
 *     commands: [{ name: "runtime-echo", summary: "…", usage: "runtime-echo TEXT…",
 *                  run: async (args, io) => host.output.text(args.join(" ") + "\n") }],
 *     close: async () => {},                                // optional: runs when the session ends
 *   };
 * }
 * ```
 * `run` returns `{stdout, stderr, exitCode}` (build it with `host.output.*`) or throws; a thrown
 * error with a runtime `code` (NOT_CONFIGURED, UPSTREAM_TIMEOUT, …) gets that code's exit status.
 */

export interface ModuleVariable {
  name: string;
  description: string;
  /** The module's commands cannot work without it. */
  required?: boolean;
  /** A credential: status says whether it is set, never its value. */
  secret?: boolean;
}

/** A command a module's setup returns: the text layer's own command shape (command.ts). */
export type ModuleCommand = TextCommand;

export interface ModuleSetup {
  commands: ModuleCommand[];
  close?: () => unknown;
}

export interface ModuleOutputHelpers {
  text(stdout: string, exitCode?: number): CommandOutput;
  json(value: unknown, exitCode?: number): CommandOutput;
  usage(command: string, message: string, usage: string): CommandOutput;
  /** The refusal of a change without --confirm: exit 4, a message saying so. */
  confirmRequired(command: string, what: string): CommandOutput;
  /** Any thrown error as `{ok:false,error}` JSON with the exit status of its code. */
  error(command: string, error: unknown): CommandOutput;
  /** A pipeline answer as output: JSON, and for an error `CODE: message` on stderr with its exit status. */
  outcome(command: string, outcome: { isError: boolean; payload: object }): CommandOutput;
}

/** A server a module wraps, as an in-memory plugin of this session (see module-plugins.ts). */
export interface ModulePluginSpec {
  /** Names the plugin in answers and errors ("plugin 'generic-mcp'"). */
  prefix: string;
  name: string;
  description: string;
  /** The module's client, made on first use; may throw an error with code NOT_CONFIGURED. */
  client: () => Adapter;
  /** Default true: tools that change data need --confirm. */
  requireConfirm?: boolean;
  /** Tools that only read (no --confirm). */
  readonlyTools?: string[];
  /** Default false: the server's own readOnlyHint does not lift the gate. */
  trustReadOnlyHints?: boolean;
}

export interface ModulePlugin {
  prefix: string;
  /** The client, made on first use (for what is not a tool call, e.g. an auth check that lists tools). */
  adapter: Adapter;
  /** Call one tool through the runtime's pipeline; `confirm` is the top-level confirmation. */
  call(toolName: string, args: Record<string, unknown>, options?: { confirm?: boolean; signal?: AbortSignal | undefined }): Promise<{ isError: boolean; payload: object }>;
  /** The search/describe/call commands over the runtime's operations, under the names given. */
  commands(names: { search: string; describe: string; call: string }): ModuleCommand[];
  /** Close the client (from the module's own close). */
  close(): Promise<void>;
}

export interface ModuleHost {
  /** The server's environment (read-only copy). Credentials are read here, on the host. */
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** The runtime's env-driven clients and shared helpers. */
  lib: ModuleLib;
  output: ModuleOutputHelpers;
  exit: typeof EXIT;
  /** The session this module is loaded into. */
  sessionId: string;
  /** Wrap a server as an in-memory plugin of this session: its commands take the runtime's one call path. */
  plugin(spec: ModulePluginSpec): ModulePlugin;
}

export interface TextModule {
  name: string;
  description: string;
  variables: ModuleVariable[];
  commands: string[];
  /** Optional: what is missing on the host, when `required` flags cannot say it (either of two variables). */
  missing?: (env: Readonly<Record<string, string | undefined>>) => string[];
  setup(host: ModuleHost): ModuleSetup | Promise<ModuleSetup>;
}
