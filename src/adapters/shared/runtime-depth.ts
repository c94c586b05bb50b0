/**
 * How deep this runtime sits in a chain of agent-tools runtimes started by one another: the
 * backstop against a config that starts this runtime again through something self-reference.ts
 * cannot see (a wrapper script, a variable holding the path). Every child the runtime starts gets
 * AGENT_TOOLS_DEPTH = its own depth + 1 (set last, so a declared `env` cannot lower it); the value
 * is a small number, never a credential. A runtime at MAX_RUNTIME_DEPTH starts no stdio MCP server,
 * so a loop ends after three runtimes instead of growing until the machine gives out, while one
 * deliberate nesting (a runtime behind a runtime, with servers of its own) still works.
 */

export const DEPTH_VARIABLE = "AGENT_TOOLS_DEPTH";
export const MAX_RUNTIME_DEPTH = 2;

/** 0 for the runtime a client started (unset, or not a whole number). */
export function runtimeDepth(env: NodeJS.ProcessEnv): number {
  const value = env[DEPTH_VARIABLE]?.trim() ?? "";
  return /^\d{1,4}$/.test(value) ? Number(value) : 0;
}

/** The variable a child of this runtime is given. */
export function childDepthVariable(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  return { [DEPTH_VARIABLE]: String(runtimeDepth(hostEnv) + 1) };
}

/**
 * What to do about the guard, in one wording for every place that reports it (a call's refusal
 * carries it as its hint; the problems list of help and `validate` appends it to the line): the
 * fix is in a config above, never in this runtime's environment (the generic NOT_CONFIGURED hint
 * would ask for a variable to set; here there is none).
 */
export const DEPTH_REFUSAL_HINT =
  `This runtime is ${MAX_RUNTIME_DEPTH} or more levels down a chain of agent-tools runtimes, each started by the one above through an mcpServers entry (${DEPTH_VARIABLE} counts the levels; the guard stops a config that starts agent-tools again). ` +
  `Find the entry (or wrapper script) that starts agent-tools in the config of the runtime above and remove it or name it in that config's plugins.disable; ` +
  `there is nothing to set here, and ${DEPTH_VARIABLE} is not meant to be set by hand.`;

/** Why this runtime starts no stdio MCP server (the fix: DEPTH_REFUSAL_HINT), or undefined when it may. */
export function depthRefusal(env: NodeJS.ProcessEnv): string | undefined {
  const depth = runtimeDepth(env);
  if (depth < MAX_RUNTIME_DEPTH) return undefined;
  return `this runtime was started by another agent-tools runtime ${depth} levels deep (${DEPTH_VARIABLE}=${depth}), so it starts no stdio MCP servers of its own: its config most likely starts agent-tools again (perhaps through a wrapper script)`;
}

/** The line of the problems list (help, `validate`): the refusal and its fix, in the words a call's refusal uses. */
export function depthProblem(env: NodeJS.ProcessEnv): string | undefined {
  const refusal = depthRefusal(env);
  return refusal && `stdio MCP servers are not started: ${refusal}. ${DEPTH_REFUSAL_HINT}`;
}

/** The adapter kinds that start a stdio MCP server when their block names a `command`: `mcp-filesystem` (the embedded filesystem plugin's kind) wraps an `mcp` block. */
const STDIO_MCP_KINDS = new Set(["mcp", "mcp-filesystem"]);

/** Whether a manifest's adapter block starts a stdio MCP server, which the depth guard refuses. */
export function startsStdioMcpServer(adapter: unknown): boolean {
  if (typeof adapter !== "object" || adapter === null) return false;
  const block = adapter as { kind?: unknown; command?: unknown };
  return typeof block.kind === "string" && STDIO_MCP_KINDS.has(block.kind) && block.command !== undefined;
}
