import { isPlainObject } from "../../plain-object.js";

/**
 * Whether a stored catalog entry can be used as it is. Entries are files anyone with the user's
 * rights can edit (or a disk can tear), and the runtime feeds them straight to discover, search
 * and call: a description that is an object (`{"en":"Echo"}`) made every search throw until the
 * cache was cleared, `"tools":[null]` read as an empty catalog, and a `listedAt` in the future
 * kept the entry from ever being listed again. So every field the runtime reads is checked here;
 * any other value makes the entry a miss, which the next listing overwrites.
 */

/**
 * How far in the future a listing time may be: processes sharing a cache (another machine's,
 * through Redis) may have clocks a little apart. Past this, the entry would never count as stale.
 */
export const FUTURE_SKEW_MS = 5 * 60_000;

function toolProblem(tool: unknown, index: number): string | undefined {
  const at = `tools[${index}]`;
  if (!isPlainObject(tool)) return `${at} is not an object`;
  if (typeof tool.name !== "string" || tool.name === "") return `${at}.name is not a non-empty string`;
  for (const field of ["title", "description"]) {
    if (tool[field] !== undefined && typeof tool[field] !== "string") return `${at}.${field} is not a string`;
  }
  if (!isPlainObject(tool.inputSchema)) return `${at}.inputSchema is not an object`;
  for (const field of ["outputSchema", "annotations"]) {
    if (tool[field] !== undefined && !isPlainObject(tool[field])) return `${at}.${field} is not an object`;
  }
  return undefined;
}

/**
 * Why `value` (an entry of the current format, its `format` field aside) cannot be used, or
 * undefined when it can. `now`: the clock the listing time is compared with.
 */
export function entryProblem(value: unknown, now: number = Date.now()): string | undefined {
  if (!isPlainObject(value)) return "it is not a JSON object";
  if (typeof value.prefix !== "string") return "prefix is not a string";
  if (typeof value.listedAt !== "number" || !Number.isFinite(value.listedAt) || value.listedAt < 0) return "listedAt is not a time";
  if (value.listedAt > now + FUTURE_SKEW_MS) return `listedAt is ${new Date(value.listedAt).toISOString()}, in the future`;
  if (value.expiresAt !== undefined && (typeof value.expiresAt !== "number" || !Number.isFinite(value.expiresAt) || value.expiresAt < 0)) return "expiresAt is not a time";
  if (value.server !== undefined) {
    const server = value.server;
    if (!isPlainObject(server) || typeof server.name !== "string" || typeof server.version !== "string") return "server is not { name, version } strings";
    for (const field of ["title", "description", "instructions"]) {
      if (server[field] !== undefined && typeof server[field] !== "string") return `server.${field} is not a string`;
    }
  }
  if (!Array.isArray(value.tools)) return "tools is not an array";
  for (const [index, tool] of value.tools.entries()) {
    const problem = toolProblem(tool, index);
    if (problem) return problem;
  }
  return undefined;
}
