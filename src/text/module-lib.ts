import { AdapterSpecError } from "../adapters/shared/errors.js";
import { cliRunnerFromEnv } from "../adapters/cli/runner.js";
import { mcpClientFromEnv, stdioMcpClientFromEnv } from "../adapters/mcp/from-env.js";
import { restRequesterFromEnv } from "../adapters/rest/requester.js";
import { fromThrown, HINTS, RuntimeError } from "../runtime/errors.js";
import { parseArguments } from "./argv.js";
import { errorOutput, jsonOutput, outcomeOutput, output, usageError } from "./command.js";
import { EXIT } from "./exit-codes.js";
import type { ModuleOutputHelpers } from "./module-contract.js";
import { bundledReadonlyTools } from "./module-plugins.js";

/**
 * What a text module gets in `host.lib`: the runtime's env-driven clients (so a module holds no
 * client code of its own) and a bundled plugin's read-only list. A module that wraps a server
 * makes it an in-memory plugin with `host.plugin(...)`: there is no second call path here.
 */

export const outputHelpers: ModuleOutputHelpers = {
  text: (stdout, exitCode = EXIT.OK) => output(stdout, exitCode),
  json: (value, exitCode = EXIT.OK) => jsonOutput(value, exitCode),
  usage: (command, message, usage) => usageError(command, message, usage),
  confirmRequired(command, what) {
    const error = new RuntimeError("CONFIRM_REQUIRED", `${what} changes data; add --confirm to run it`);
    return errorOutput(command, { ok: false, error: error.toPayload() }, EXIT.CONFIRM_REQUIRED);
  },
  outcome: (command, outcome) => outcomeOutput(command, outcome),
  error(command, thrown) {
    const error = thrown instanceof AdapterSpecError ? new RuntimeError("NOT_CONFIGURED", thrown.message) : fromThrown(thrown);
    return errorOutput(command, { ok: false, error: error.toPayload() });
  },
};

export const moduleLib = {
  mcpClientFromEnv,
  stdioMcpClientFromEnv,
  restRequesterFromEnv,
  cliRunnerFromEnv,
  bundledReadonlyTools,
  parseArguments,
  hints: HINTS,
};

export type ModuleLib = typeof moduleLib;
