import { describeThrown, RuntimeError } from "../errors.js";

/**
 * Why a value that plugin code returned cannot become JSON, and where in it: a BigInt, a cycle,
 * a `toJSON()` or a getter that throws, a Proxy whose fields cannot be listed (and, found by the
 * caller, a function or Symbol as the whole result). JSON.stringify says only "Do not know how to serialize a
 * BigInt" (no path), and a cycle overflows the redactor's walk, which looks like a result nested
 * too deeply; this walk finds the real cause, so the error can tell the plugin's author what to
 * fix. It runs only after shaping failed (or once per finished job), never on the usual path.
 */

export interface Unserialisable {
  problem: "bigint" | "cycle" | "toJSON" | "getter" | "unreadable" | "function" | "symbol";
  /** Where, as a JavaScript path from `result` (`result.items[2].id`). */
  path: string;
  /** For a cycle: the path of the object it points back to. */
  backTo?: string;
  /** For a throwing toJSON or getter: what it threw. */
  thrown?: string;
}

/** The walk gives up (finds nothing) past this many values: a huge result is not searched whole on an error path. */
const MAX_VALUES = 1_000_000;

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

type Frame = { value: unknown; path: string; key: string } | { leave: object };

/** The first thing in `value` that JSON.stringify cannot take, depth first; undefined when there is none. */
export function findUnserialisable(value: unknown, root = "result"): Unserialisable | undefined {
  // The objects on the path from the root to the current one: meeting one again is a cycle (a
  // shared object met on another branch is not).
  const onPath = new Map<object, string>();
  const stack: Frame[] = [{ value, path: root, key: "" }];
  let seen = 0;
  while (stack.length) {
    const frame = stack.pop() as Frame;
    if ("leave" in frame) {
      onPath.delete(frame.leave);
      continue;
    }
    if (++seen > MAX_VALUES) return undefined;
    const { path } = frame;
    let item = frame.value;
    if (typeof item === "bigint") return { problem: "bigint", path };
    if (!item || typeof item !== "object") continue;
    let toJSON: unknown;
    try {
      toJSON = (item as { toJSON?: unknown }).toJSON;
    } catch (error) {
      return { problem: "getter", path: childPath(path, "toJSON"), thrown: describeThrown(error) };
    }
    if (typeof toJSON === "function") {
      try {
        item = (toJSON as (key: string) => unknown).call(item, frame.key);
      } catch (error) {
        return { problem: "toJSON", path, thrown: describeThrown(error) };
      }
      if (typeof item === "bigint") return { problem: "bigint", path };
      if (!item || typeof item !== "object") continue;
    }
    const back = onPath.get(item);
    if (back !== undefined) return { problem: "cycle", path, backTo: back };
    onPath.set(item, path);
    stack.push({ leave: item });
    let keys: Array<string | number>;
    try {
      keys = Array.isArray(item) ? [...item.keys()] : Object.keys(item);
    } catch (error) {
      // A Proxy whose ownKeys trap throws: its fields cannot even be listed.
      return { problem: "unreadable", path, thrown: describeThrown(error) };
    }
    // Pushed last to first, so the first key is looked at first.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string | number;
      let child: unknown;
      try {
        child = (item as Record<string | number, unknown>)[key];
      } catch (error) {
        return { problem: "getter", path: childPath(path, key), thrown: describeThrown(error) };
      }
      stack.push({ value: child, path: childPath(path, key), key: String(key) });
    }
  }
  return undefined;
}

/** What was found, and what the plugin's author does about it. */
function described(found: Unserialisable): string {
  switch (found.problem) {
    case "bigint":
      return `a BigInt at ${found.path}. The plugin's author should convert BigInt values to strings (or to numbers, when they fit) before returning them`;
    case "cycle":
      return `a circular reference at ${found.path}, which points back to ${found.backTo ?? "an object that holds it"}. The plugin's author should return data without the cycle (drop the back-reference, or refer to the object by its id)`;
    case "toJSON":
      return `the toJSON() of the value at ${found.path} threw: ${found.thrown ?? "an error"}. The plugin's author should fix that toJSON(), or return plain data instead of the object`;
    case "getter":
      return `reading ${found.path} threw: ${found.thrown ?? "an error"} (a getter). The plugin's author should return plain data (the values copied out) instead of an object with getters`;
    case "unreadable":
      return `listing the fields of ${found.path} threw: ${found.thrown ?? "an error"} (a Proxy or another exotic object). The plugin's author should return plain data (the values copied out) instead`;
    case "function":
    case "symbol":
      return `${found.path} is a ${found.problem === "function" ? "function" : "Symbol"}, not data (JSON has no such value, so nothing would be answered). The plugin's author should return the data itself (call the function, or return null for no result)`;
  }
}

/**
 * The error for a result `what` (e.g. "skill 'sk:report'") returned that cannot be sent: names it,
 * what could not be serialised and where, and the fix; the hint says the fault is the plugin's code.
 */
export function unserialisableError(what: string, found: Unserialisable): RuntimeError {
  return new RuntimeError(
    "UPSTREAM_ERROR",
    `${what} returned a result that cannot be sent as JSON: ${described(found)}`,
    { problem: found.problem, path: found.path, ...(found.backTo ? { backTo: found.backTo } : {}) },
    pluginFaultHint(what),
  );
}

/** The hint of a result `what` returned that cannot be passed on: the plugin's code is at fault, not the call. */
export function pluginFaultHint(what: string): string {
  return `This is a fault in the plugin's code, not in your call: calling it again fails the same way (what it did before returning was done). Tell the user that ${what} needs fixing, as \`message\` says; meanwhile do the work another way if you can (the plugin's other tools).`;
}
