import type { Adapter, ToolDescriptor } from "../adapters/types.js";
import { RuntimeError } from "../errors.js";
import { forbiddenWrite } from "./access.js";
import type { Session } from "./session.js";

/**
 * The gate: the last step before anything reaches a backend. It is a chain of policies, each an
 * async function that resolves to let the call through or throws a RuntimeError to refuse it.
 *
 * This is the seam later work plugs into without touching the pipeline. Two chains:
 * - access policies (who may do this) run as soon as the tool is resolved, before validation, so
 *   a caller learns nothing about a call it may not make: the runtime's own `identityWrites`
 *   (FORBIDDEN for a read-only identity of the team gateway), then `RuntimeOptions.accessPolicies`;
 * - the confirmation policy (may this write run) runs after validation, so the human is asked
 *   only about a call that can run: the default, `confirmFlag`, refuses a write without
 *   `confirm: true`; a front end may replace it for its session (`OperationContext.confirmation`),
 *   e.g. an elicitation policy that asks the human and resolves when they agree.
 * Every request a skill's code makes of the adapter goes through the same chain (`gatedAdapter`),
 * not only `call`, so a skill is never a way around it.
 */

export interface GateRequest {
  session: Session;
  /** The plugin's prefix. */
  plugin: string;
  /** "call": a _call (or a text command's call); "skill": something a skill's code asked of the adapter. */
  via: "call" | "skill";
  /** For via "skill": the skill, and the arguments of its run. */
  skill?: string;
  skillArguments?: unknown;
  /** The tool about to run; for an adapter method other than `call`, the method's name. */
  target: string;
  /** The tool's descriptor, when the target is a tool. */
  tool?: ToolDescriptor;
  arguments: unknown;
  /** Whether it can change data: the target is not known read-only (whatever the plugin's confirm rule). */
  writes: boolean;
  /** Whether confirmation applies: it writes and the plugin requires confirmation. */
  mutating: boolean;
  /** Why the target counts as changing data (write-reason.ts), as CONFIRM_REQUIRED's `details.why` says it. */
  why?: string;
  /** `confirm: true` was sent at the top level of the request. */
  confirmed: boolean;
  /** Where a `confirm` was found and not honoured ("arguments.confirm"), to say where it belongs. */
  misplacedConfirm?: string;
  /** A top-level `confirm` that was not the JSON boolean true, as the refusal names it (`the string "true"`). */
  unreadConfirm?: string;
  signal?: AbortSignal;
}

/**
 * One step of the gate: return (or resolve) to allow, throw (or reject with) a RuntimeError to
 * refuse. A policy that decides at once may answer synchronously: the gate then costs no promise.
 */
export type GatePolicy = (request: GateRequest) => Promise<void> | void;

/** The default confirmation policy: a write runs only with `confirm: true` at the top level. */
export const confirmFlag: GatePolicy = async (request) => {
  if (!request.mutating || request.confirmed) return;
  const misplaced = request.misplacedConfirm
    ? ` The 'confirm' in ${request.misplacedConfirm} was not honoured: it belongs at the top level, next to ${request.via === "skill" ? "'skill'" : "'toolName'"}.`
    : "";
  const unread = request.unreadConfirm ? ` 'confirm' was ${request.unreadConfirm}; it must be the JSON boolean true.` : "";
  const details = {
    tool: request.target,
    why: `${request.why ?? (request.tool ? "it is not known to be read-only" : `'${request.target}' is an adapter method a skill called that the adapter's readsOnly does not say only reads`)}; the plugin requires confirmation of changes (requireConfirm)`,
    confirm: "top level of the request, only if the user asked for this change",
  };
  if (request.via === "skill") {
    throw new RuntimeError(
      "CONFIRM_REQUIRED",
      `skill '${request.skill ?? "?"}' calls '${request.target}', which changes data; it stopped before that step. Confirmation is needed to run it.${unread}${misplaced}`,
      { skill: request.skill, ...details },
    );
  }
  throw new RuntimeError("CONFIRM_REQUIRED", `'${request.target}' changes data and was not run: confirmation is needed.${unread}${misplaced}`, details);
};

/**
 * The runtime's identity policy (team gateway): an identity without write access may not run
 * anything that changes data, whether a tool, or a skill's step. Runs before the confirmation
 * policy, so a read-only identity is told FORBIDDEN rather than asked to confirm.
 */
export const identityWrites: GatePolicy = (request) => {
  const identity = request.session.identity;
  if (!request.writes || !identity || identity.write) return;
  throw forbiddenWrite(identity, request.plugin, request.via === "skill" ? `skill '${request.skill ?? "?"}' calls '${request.target}', which` : `'${request.target}'`);
};

/**
 * Run the policies in order, each after the one before it allowed the call. A promise only when a
 * policy answered with one (most decide at once); a refusal at once is thrown at once. `first`:
 * where to go on after a policy that waited (no copy of the chain).
 */
export function passGate(policies: readonly GatePolicy[], request: GateRequest, first = 0): Promise<void> | void {
  for (let i = first; i < policies.length; i++) {
    const waiting = (policies[i] as GatePolicy)(request);
    if (waiting) return i + 1 < policies.length ? waiting.then(() => passGate(policies, request, i + 1)) : waiting;
  }
}

/** Adapter methods that only read: a skill reaches them without the gate. */
const READ_METHODS: ReadonlySet<string> = new Set(["listTools", "search", "describe", "discoverContext", "onToolsChanged", "serverInfo", "health", "readsOnly"]);

export interface SkillGate {
  /** The request a skill's `adapter.call(name, args)` makes; resolves when the gate lets it through. */
  call(name: string, args: unknown): Promise<void>;
  /** Any other adapter method (one the gate cannot tell is read-only); `name` is dotted for a nested one (`rest.request`). */
  method(name: string, args: unknown[]): Promise<void>;
}

/**
 * Values a skill reaches on the adapter that carry data, not a way to a backend: handed over as
 * they are. (Wrapped, an array's `map` or a promise's `then` would be held as a write.)
 */
function holdsData(value: object): boolean {
  return (
    Array.isArray(value) ||
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    value instanceof Promise ||
    value instanceof Date ||
    value instanceof RegExp ||
    value instanceof Error ||
    value instanceof Map ||
    value instanceof Set ||
    value instanceof WeakMap ||
    value instanceof WeakSet
  );
}

/**
 * The adapter a skill receives: every method goes through the gate — `call` per tool, read-only
 * methods freely, any other method (a module adapter's own `erase()`, `close()`) as a write unless
 * the adapter's `readsOnly(method, args)` says that call only reads. Objects the adapter holds
 * (a REST client such as n8n's `n8nRest`) are wrapped the same way, lazily and once per object (so
 * `adapter.rest === adapter.rest`), their methods named with dots (`n8nRest.request`): a skill
 * cannot write around the gate by reaching one level down. Methods are bound to their real
 * object, so class adapters with private fields keep working.
 */
export function gatedAdapter(adapter: Adapter, gate: SkillGate): Adapter {
  const answers = adapter.readsOnly;
  // An answer other than true, or one that throws, is a write: the gate fails closed.
  const readsOnly = (name: string, args: unknown[]): boolean => {
    if (typeof answers !== "function") return false;
    try {
      return answers.call(adapter, name, args) === true;
    } catch {
      return false;
    }
  };
  const wrapped = new WeakMap<object, object>();
  const wrap = <T extends object>(real: T, path: string): T => {
    const known = wrapped.get(real);
    if (known) return known as T;
    const proxy = new Proxy(real, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof property !== "string") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        const name = `${path}${property}`;
        if (value !== null && typeof value === "object") return holdsData(value) ? value : wrap(value, `${name}.`);
        if (typeof value !== "function") return value;
        const fn = value as (...a: unknown[]) => unknown;
        if (name === "call") {
          return async (tool: string, args: Record<string, unknown>, ctx?: unknown) => {
            await gate.call(tool, args);
            return fn.call(target, tool, args, ctx);
          };
        }
        // Object's own methods (toString, hasOwnProperty) reach nothing.
        if (READ_METHODS.has(name) || property === "constructor" || fn === (Object.prototype as unknown as Record<string, unknown>)[property]) return fn.bind(target);
        // A call the adapter says only reads runs as it is (a synchronous method stays synchronous);
        // any other waits for the gate first.
        return (...args: unknown[]) => {
          if (readsOnly(name, args)) return fn.apply(target, args);
          return gate.method(name, args).then(() => fn.apply(target, args));
        };
      },
    });
    wrapped.set(real, proxy);
    return proxy;
  };
  return wrap(adapter, "");
}
