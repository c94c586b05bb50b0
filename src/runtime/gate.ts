import type { Adapter, CallContext, ToolDescriptor } from "../adapters/types.js";
import { RuntimeError } from "../errors.js";
import { forbiddenWrite } from "./access.js";
import type { ConfirmedBy } from "./observer.js";
import type { Session } from "./session.js";
import { stepContext } from "./step-context.js";
import { fromAdapter } from "./passed-through.js";

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
  /**
   * Filled in by a confirmation policy that lets a write through: who confirmed it (the audit
   * entry's `confirmedBy`). The runtime's default policy sets it; one a front end supplies may.
   */
  confirmedBy?: ConfirmedBy;
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

/**
 * CONFIRM_REQUIRED's sentence for a `confirm` sent where it is not read (`where`: "arguments.confirm"),
 * in the typed tools' words; the text layer puts its own words (`--confirm`) in its place (text/command.ts).
 */
export function misplacedConfirmSentence(where: string, via: "tool" | "skill"): string {
  return ` The 'confirm' in ${where} was not honoured: it belongs at the top level, next to ${via === "skill" ? "'skill'" : "'toolName'"}.`;
}

/** The default confirmation policy: a write runs only with `confirm: true` at the top level. */
export const confirmFlag: GatePolicy = async (request) => {
  if (!request.mutating) return;
  if (request.confirmed) {
    request.confirmedBy = "model";
    return;
  }
  const misplaced = request.misplacedConfirm ? misplacedConfirmSentence(request.misplacedConfirm, request.via === "skill" ? "skill" : "tool") : "";
  const unread = request.unreadConfirm ? ` 'confirm' was ${request.unreadConfirm}; it must be the JSON boolean true.` : "";
  // The fact alone: it is sent on every write attempt (README "Confirmation" has the rules).
  const why = request.why ?? (request.tool ? "not known to be read-only" : "an adapter method not in the adapter's readsOnly");
  // Where and when to confirm is the hint's to say (errors.ts), once: details carry the facts only.
  if (request.via === "skill") {
    throw new RuntimeError(
      "CONFIRM_REQUIRED",
      `skill '${request.skill ?? "?"}' calls '${request.target}', which changes data; it stopped before that step. Confirmation is needed to run it.${unread}${misplaced}`,
      // The step's tool: the answer's `target` is the skill.
      { skill: request.skill, tool: request.target, why },
    );
  }
  // The tool is the answer's `target`: details do not repeat it.
  throw new RuntimeError("CONFIRM_REQUIRED", `'${request.target}' changes data and was not run: confirmation is needed.${unread}${misplaced}`, { why });
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
/**
 * Who confirmed a request the gate let through, for the audit: nobody for a read, "not needed"
 * for a write of a plugin that asks no confirmation, else what the confirmation policy said.
 */
export function confirmedByOf(request: GateRequest): ConfirmedBy | undefined {
  if (!request.writes) return undefined;
  return request.mutating ? request.confirmedBy : "not needed";
}

/** Of a skill run's steps, the one that says most: a human's yes over the model's, over none needed. */
export function strongerConfirmation(a: ConfirmedBy | undefined, b: ConfirmedBy | undefined): ConfirmedBy | undefined {
  const rank = (by: ConfirmedBy | undefined): number => (by === "user" ? 3 : by === "model" ? 2 : by === "not needed" ? 1 : 0);
  return rank(a) >= rank(b) ? a : b;
}

export function passGate(policies: readonly GatePolicy[], request: GateRequest, first = 0): Promise<void> | void {
  for (let i = first; i < policies.length; i++) {
    const waiting = (policies[i] as GatePolicy)(request);
    if (waiting) return i + 1 < policies.length ? waiting.then(() => passGate(policies, request, i + 1)) : waiting;
  }
}

/**
 * Adapter methods that only read: a skill reaches them without the gate. The contract's read
 * methods, and its status methods (what the adapter knows of its backend: `serverInfo`, `health`,
 * `stillStarting`, `protocolVerdict`), which send nothing, answer at once, and are asked by the
 * runtime too: held as writes, they would answer a promise (a refusal once the run is stopped).
 */
const READ_METHODS: ReadonlySet<string> = new Set(["listTools", "search", "describe", "discoverContext", "onToolsChanged", "serverInfo", "health", "stillStarting", "protocolVerdict", "readsOnly"]);

export interface SkillGate {
  /** The request a skill's `adapter.call(name, args)` makes; resolves when the gate lets it through. */
  call(name: string, args: unknown): Promise<void>;
  /** Any other adapter method (one the gate cannot tell is read-only); `name` is dotted for a nested one (`rest.request`). */
  method(name: string, args: unknown[]): Promise<void>;
}

/**
 * Globals whose instances carry something elsewhere or call back into code (an event target's
 * listeners, a channel's other end, a stream's sink, a weak reference's target): not data, even
 * though their class is a built-in. Arrays and plain objects are wrapped too (they can hold clients).
 */
const NOT_DATA_GLOBALS: ReadonlySet<string> = new Set(["Object", "Function", "Array", "EventTarget", "WeakRef", "FinalizationRegistry"]);

/**
 * The web platform's value types a plugin commonly holds, which Node defines lazily (a getter on
 * globalThis): read by name, so the streams, ports and channels it also defines lazily are left out.
 */
const LAZY_DATA_GLOBALS = ["Buffer", "Blob", "File", "FormData", "Headers", "Request", "Response", "TextEncoder", "TextDecoder", "AbortController", "AbortSignal", "DOMException"] as const;

let builtinPrototypes: ReadonlySet<object> | undefined;

/**
 * The prototypes of the built-in classes whose instances are data: every constructor defined as
 * a value on globalThis (the language's own: Date, Map, URL, URLSearchParams, Event…) other than
 * NOT_DATA_GLOBALS, and the LAZY_DATA_GLOBALS. Taken once, on the first value that needs it (not
 * at import: reading the lazy globals loads their code), so a later change to globalThis cannot
 * make a plugin's own class count as built-in.
 */
function dataPrototypes(): ReadonlySet<object> {
  if (builtinPrototypes) return builtinPrototypes;
  const found = new Set<object>();
  const add = (name: string, value: unknown): void => {
    if (NOT_DATA_GLOBALS.has(name) || typeof value !== "function") return;
    const prototype = (value as { prototype?: unknown }).prototype;
    if (prototype === null || typeof prototype !== "object") return;
    // Anything built on EventTarget (a port, a socket, a channel) is a way out; AbortSignal only signals.
    if (typeof EventTarget === "function" && prototype instanceof EventTarget && name !== "AbortSignal") return;
    found.add(prototype);
  };
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    const own = Object.getOwnPropertyDescriptor(globalThis, name);
    if (own && "value" in own) add(name, own.value);
  }
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of LAZY_DATA_GLOBALS) add(name, global[name]);
  return (builtinPrototypes = found);
}

/**
 * Values a skill reaches on the adapter that carry data, not a way to a backend: handed over as
 * they are. (Wrapped, a promise's `then`, a map's `get`, a URL's `toString` or a Headers' `get`
 * would be held as a write.) The rule: an object whose own class is a built-in one, i.e. whose
 * prototype is the prototype of a global constructor (dataPrototypes) — a URL, Headers, Blob,
 * Buffer, a typed array, a Date. A plugin's own class that extends a built-in is still wrapped
 * (its methods may reach a backend), except the subclasses of the kinds listed below, handed over
 * as before. Arrays are not among them: an array of clients is wrapped element by element (below).
 */
function holdsData(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype !== null && dataPrototypes().has(prototype)) return true;
  return (
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
 * Conversions: what `String(x)`, a template string, `JSON.stringify` and `util.inspect` call on
 * a value. They turn it into text and change nothing, and the language calls them synchronously
 * (a gated one would answer a promise: "Cannot convert object to primitive value"), so they run
 * ungated. `Symbol.toPrimitive` is among the well-known symbols below.
 */
const CONVERSIONS: ReadonlySet<string | symbol> = new Set(["toString", "valueOf", "toJSON", "toLocaleString", Symbol.for("nodejs.util.inspect.custom")]);

/**
 * The well-known symbols (`Symbol.iterator`, `Symbol.toPrimitive`, `Symbol.hasInstance`…): their
 * methods are the language's own protocols (iterate, convert, `instanceof`), which a skill uses
 * without meaning a request, so they run ungated. Any other symbol-keyed method is gated.
 */
const WELL_KNOWN_SYMBOLS: ReadonlySet<unknown> = new Set(Object.getOwnPropertyNames(Symbol).map((key) => (Symbol as unknown as Record<string, unknown>)[key]).filter((value) => typeof value === "symbol"));

/** A function that carries properties of its own besides its name and length (an axios/ky-style client: callable, with `get`, `post`…). */
function hasOwnMembers(fn: object): boolean {
  return Reflect.ownKeys(fn).some((key) => key !== "length" && key !== "name" && key !== "prototype");
}

/**
 * How a member is named in the gate: dotted for a string key (`rest.request`), bracketed for a
 * symbol (`rest[Symbol(x)]`) and for an array's element (`clients[0].del`).
 */
function memberName(path: string, property: string | symbol, inArray: boolean): string {
  if (typeof property !== "string") return `${path}[${String(property)}]`;
  if (inArray && /^(0|[1-9][0-9]*)$/.test(property)) return `${path}[${property}]`;
  return path ? `${path}.${property}` : property;
}

type AnyFunction = (...args: unknown[]) => unknown;

const ignore = (): void => {};

/**
 * `step` once the gate lets it through (`pass`), as the promise the skill gets. A refusal the
 * skill never waits for (`adapter.call("write", {})` neither awaited nor caught) must not become
 * an unhandled rejection, which would end the server: the run already holds it for its answer
 * (the pipeline's refusals, and `deciding` makes the answer wait for it). So once the gate has
 * refused, the handed promise is marked handled; a skill that awaits it still sees the refusal.
 * A failure of the step itself (the backend's) stays the skill's to handle.
 */
function afterGate(pass: () => Promise<void>, step: () => unknown): Promise<unknown> {
  let passing: Promise<void>;
  try {
    passing = pass();
  } catch (error) {
    passing = Promise.reject(error);
  }
  const handed = passing.then(step);
  passing.catch(() => void handed.catch(ignore));
  return handed;
}

/**
 * The adapter a skill receives: every method goes through the gate — `call` per tool, read-only
 * methods freely, any other method (a module adapter's own `erase()`, `close()`, a symbol-keyed
 * one) as a write unless the adapter's `readsOnly(method, args)` says that call only reads.
 * Objects the adapter holds (a REST client such as n8n's `n8nRest`) are wrapped the same way,
 * lazily and once per object (so `adapter.rest === adapter.rest`), their methods named with dots
 * (`n8nRest.request`): a skill cannot write around the gate by reaching one level down. A function
 * with methods of its own (axios/ky style) stays callable, gated under its name, and its methods
 * under dotted names (`http.get`). An array's elements are wrapped as they are read
 * (`clients[0].del`), while its own methods (`map`, `filter`…) stay the array's, so
 * `adapter.rows.map(...)` works and sees the wrapped elements. Methods are bound to their real
 * object, so class adapters with private fields keep working, and getters are read on the real
 * object.
 *
 * Each view is a Proxy over a stand-in (a null-prototype object, or an arrow function for a
 * callable client), never over the real object: a Proxy's traps must answer the real value of a
 * frozen property, so over a frozen adapter (or a frozen client it holds) the gate could not hand
 * out its wrappers. Every read is forwarded to the real object, reflection included
 * (`Object.getOwnPropertyDescriptor`, `Object.keys`, `in`, the prototype), and answers the same
 * gated values as a plain read; writes of properties are forwarded too, a wrapper written back
 * (an array sorted in place) as the real value it stands for.
 *
 * `runContext`: the run's context (the one its `run` was handed), read at each step: a `call`
 * is sent with it, or with the step's own joined to it (step-context.ts), so the run's deadline
 * and the client's cancel abort the step in flight.
 */
export function gatedAdapter(adapter: Adapter, gate: SkillGate, runContext?: () => CallContext | undefined): Adapter {
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

  /**
   * A method of `owner` as the skill gets it, named `name` in the gate. `ownerView`: the view of
   * `owner`, which a conversion answering its owner (`valueOf`) answers instead.
   */
  const gatedMethod = (fn: AnyFunction, owner: object, name: string, property: string | symbol, ownerView: () => object): AnyFunction => {
    // The run's context unless the step brings one, joined to it if it does (step-context.ts): the run's stop aborts the step in flight.
    // What the adapter throws is marked as its own (passed-through.ts): a TypeError from it is not the skill's bug.
    if (name === "call") return (tool: unknown, args: unknown, ctx?: unknown) => afterGate(() => gate.call(tool as string, args), () => fromAdapter(() => fn.call(owner, tool, args, stepContext(ctx, runContext?.()))));
    if (CONVERSIONS.has(property)) {
      return (...args: unknown[]) => {
        const converted = fn.apply(owner, args);
        return converted === owner ? ownerView() : converted;
      };
    }
    if (READ_METHODS.has(name)) return (...args: unknown[]) => fromAdapter(() => fn.apply(owner, args));
    // Object's own methods (toString, hasOwnProperty) and the language's protocols reach nothing.
    if (property === "constructor" || WELL_KNOWN_SYMBOLS.has(property) || fn === (Object.prototype as unknown as Record<string | symbol, unknown>)[property]) {
      return fn.bind(owner) as AnyFunction;
    }
    // A call the adapter says only reads runs as it is (a synchronous method stays synchronous);
    // any other waits for the gate first.
    return (...args: unknown[]) => {
      if (readsOnly(name, args)) return fromAdapter(() => fn.apply(owner, args));
      return afterGate(() => gate.method(name, args), () => fromAdapter(() => fn.apply(owner, args)));
    };
  };

  const views = new WeakMap<object, object>();
  // What each wrapper stands for: a wrapper a skill writes back (`rows.sort()`) is stored as the real value.
  const realOf = new WeakMap<object, unknown>();
  const unwrap = (value: unknown): unknown => ((value !== null && typeof value === "object") || typeof value === "function" ? (realOf.has(value) ? realOf.get(value) : value) : value);
  /**
   * The gated view of `real` (an object, an array, or a function with members of its own when
   * `callable` is given: what calling the view runs). `path`: the name of `real` in the gate (""
   * for the adapter itself).
   */
  const view = (real: object, path: string, callable?: AnyFunction): object => {
    const isArray = Array.isArray(real);
    // This view, once made below (members are reached only after).
    let self: object = real;
    // Each member handed out once while it stays the same value: `adapter.x === adapter.x`.
    const handedOut = new Map<string | symbol, { value: unknown; gated: unknown }>();
    const reach = (property: string | symbol, value: unknown): unknown => {
      if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
      const known = handedOut.get(property);
      if (known && known.value === value) return known.gated;
      const name = memberName(path, property, isArray);
      let gated: unknown;
      if (typeof value === "object") {
        gated = holdsData(value) ? value : (views.get(value) ?? view(value, name));
      } else {
        const method = gatedMethod(value as AnyFunction, real, name, property, () => self);
        gated = hasOwnMembers(value) ? view(value, name, method) : method;
        realOf.set(gated as object, value);
      }
      handedOut.set(property, { value, gated });
      return gated;
    };
    const read = (property: string | symbol): unknown => {
      const value: unknown = Reflect.get(real, property, real);
      // An array's own methods (map, filter, sort…) as they are: called on the view, they read its wrapped elements.
      if (isArray && !Object.hasOwn(real, property)) return value;
      return reach(property, value);
    };
    const handler: ProxyHandler<object> = {
      get: (_stand, property) => read(property),
      has: (_stand, property) => Reflect.has(real, property),
      ownKeys: () => Reflect.ownKeys(real),
      getOwnPropertyDescriptor: (stand, property) => {
        const own = Reflect.getOwnPropertyDescriptor(real, property);
        if (!own) return undefined;
        // An array's length: the stand-in array's own (non-configurable, writable), with the real value.
        if (isArray && property === "length") return { ...Reflect.getOwnPropertyDescriptor(stand, property), value: own.value as unknown };
        // Reported configurable: the stand-in does not hold it (a Proxy may not report a
        // non-configurable property its target lacks). The value is the gated one a read answers.
        if ("value" in own) return { value: reach(property, own.value), writable: own.writable, enumerable: own.enumerable, configurable: true };
        return { get: () => read(property), set: own.set && ((v: unknown) => Reflect.set(real, property, unwrap(v), real)), enumerable: own.enumerable, configurable: true };
      },
      getPrototypeOf: () => Reflect.getPrototypeOf(real),
      set: (_stand, property, value) => Reflect.set(real, property, unwrap(value), real),
      defineProperty: (_stand, property, descriptor) => Reflect.defineProperty(real, property, "value" in descriptor ? { ...descriptor, value: unwrap(descriptor.value) } : descriptor),
      deleteProperty: (_stand, property) => Reflect.deleteProperty(real, property),
      // The stand-in stays extensible, so the answers above never bind to it.
      preventExtensions: () => false,
      setPrototypeOf: () => false,
    };
    if (callable) handler.apply = (_stand, _this, args: unknown[]) => callable(...args);
    // An empty array for an array, so `Array.isArray` still answers true for the view.
    const stand: object = callable ? () => undefined : isArray ? [] : Object.create(null);
    const gated = new Proxy(stand, handler);
    self = gated;
    if (!callable) views.set(real, gated);
    realOf.set(gated, real);
    return gated;
  };
  return view(adapter, "") as Adapter;
}
