import { RuntimeError } from "../errors.js";

/**
 * The `workspace` argument of agent_tools_exec, read before any workspace is opened. Its own
 * module: the facade checks it on every connection, and workspaces.ts (HMAC, records) loads only
 * with the first modern exec call.
 */

/** What every refused handle says to do. */
export const START_NEW = "call agent_tools_exec without 'workspace' to start a new one, and pass the handle it answers on later calls";

/** How much of a refused `workspace` value an error quotes: a handle is about this long. */
const SHOWN_CHARS = 40;

/**
 * A refused `workspace` value as an error quotes it, in its message and in `details.got`: cut to
 * SHOWN_CHARS (a 100 kB value sent back whole would fill the answer), a non-string as JSON.
 */
function sentText(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? typeof value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/**
 * The handle an `agent_tools_exec` call names in its `workspace` argument: undefined when the
 * argument is left out (a new workspace is opened). Anything else that is not a non-empty string
 * (`5`, `""`, `null`, an object) is WORKSPACE_INVALID naming what was sent: opening a fresh
 * workspace instead would silently drop the files the caller meant to continue with.
 */
export function workspaceHandleArgument(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && value.trim()) return value.trim();
  const got = typeof value === "string" ? (value ? "a string of spaces" : "an empty string") : value === null ? "null" : `${typeof value} ${sentText(value)}`;
  throw new RuntimeError("WORKSPACE_INVALID", `'workspace' must be a workspace handle, a string like ws1.<id>.<signature> as an earlier agent_tools_exec answered it, or left out; got ${got}; ${START_NEW}`, { got: sentText(value) });
}

/**
 * A `workspace` sent where the connection is the workspace (stdio, a 2025-era HTTP session): its
 * one shell would run the line whatever the handle says, silently, so the call is refused instead
 * (nothing runs), naming what to do. Undefined when the argument is left out.
 */
export function workspaceNotTaken(value: unknown): RuntimeError | undefined {
  if (value === undefined) return undefined;
  const sent = typeof value === "string" ? `'${sentText(value)}'` : sentText(value);
  return new RuntimeError(
    "WORKSPACE_INVALID",
    `'workspace' is not taken on this connection (got ${sent}): stdio and a 2025-era HTTP session keep one shell for the whole session, whose files, variables and working folder every agent_tools_exec call shares; nothing was run. Send the call again without 'workspace'`,
    { got: sentText(value) },
  );
}

