/**
 * Hand-written answers for the MCP SDK's JSON-RPC type guards and its 2026-07-28 `_meta`
 * envelope check, spliced into the bundled SDK by scripts/bundle.ts (`fastSdkGuards`).
 *
 * The SDK answers `isJSONRPCRequest(x)` and its siblings with a zod `safeParse` of the message
 * schema, and a failed parse builds a ZodError with its issue list. A 2026-07-28 request over HTTP
 * meets about ten of these per exchange (the entry's classifier asks "is it a result? an error?"
 * before "a request?", the protocol layer asks again, the per-request transport again), plus two
 * zod parses of the same `_meta` envelope (the classifier's check and the dispatch-time one). The
 * 2025 sessions meet fewer, but the same kind. It was a large part of what the modern era paid
 * per request above the legacy one (bench/protocol.ts).
 *
 * Every function here answers only where the answer is certain for the SDK's schema
 * (@modelcontextprotocol/core, src/schemas.ts: strict JSON-RPC objects, loose params and `_meta`)
 * and returns `undefined` otherwise, and the spliced code then runs the SDK's own zod parse. So
 * plain messages (a literal object or parsed JSON with the usual members) are decided here, and
 * anything unusual (a class instance, an unsafe integer id, a task-related `_meta`, a populated
 * capability, icons…) is decided by zod exactly as before. test/sdk-guards.test.ts compares each
 * answer given here with the SDK's parse over a corpus of valid, invalid and edge-case shapes.
 *
 * No imports: the module sits in the bundle beside the SDK's code and must stay tiny.
 */

type Verdict = boolean | undefined;
type Plain = Record<string, unknown>;

const JSONRPC = "2.0";
const RELATED_TASK_KEY = "io.modelcontextprotocol/related-task";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel";

/** What zod's object check refuses outright: not an object, null, or an array. */
function notAnObject(value: unknown): boolean {
  return typeof value !== "object" || value === null || Array.isArray(value);
}

/** A literal or JSON.parse object: the only kind whose keys `for…in` lists exactly as zod sees them. */
function isPlain(value: unknown): value is Plain {
  if (notAnObject(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0;
}

/** RequestIdSchema / ProgressTokenSchema (a string or an integer): certain for strings, safe integers and non-numbers. */
function idVerdict(value: unknown, optional: boolean): Verdict {
  if (typeof value === "string") return true;
  if (value === undefined) return optional;
  if (typeof value === "number") return Number.isSafeInteger(value) ? true : undefined;
  return false;
}

/**
 * A strict object's keys: false when a key outside `allowed` holds a value (zod reports it as
 * unrecognised), undefined when one holds `undefined` (left to zod), true otherwise.
 */
function strictKeys(value: Plain, allowed: ReadonlySet<string>): Verdict {
  let verdict: Verdict = true;
  for (const key in value) {
    if (allowed.has(key)) continue;
    if (value[key] !== undefined) return false;
    verdict = undefined;
  }
  return verdict;
}

/** Combine field verdicts: any certain failure fails the object; otherwise any doubt is doubt. */
function all(...verdicts: Verdict[]): Verdict {
  let result: Verdict = true;
  for (const verdict of verdicts) {
    if (verdict === false) return false;
    if (verdict === undefined) result = undefined;
  }
  return result;
}

/** RequestMetaSchema (loose; progressToken and the related-task key typed): certain only for the usual shapes. */
function requestMetaVerdict(meta: unknown): Verdict {
  if (meta === undefined) return true;
  if (!isPlain(meta) || meta[RELATED_TASK_KEY] !== undefined) return undefined;
  return idVerdict(meta.progressToken, true) === true ? true : undefined;
}

/** `params` of a request or notification: optional, a loose object whose `_meta` is RequestMetaSchema. */
function paramsVerdict(params: unknown): Verdict {
  if (params === undefined) return true;
  if (notAnObject(params)) return false;
  if (!isPlain(params)) return undefined;
  return requestMetaVerdict(params._meta);
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "method", "params"]);
const RESULT_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "result"]);
const ERROR_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "error"]);

/** The common gate of the four message schemas: a plain object whose `jsonrpc` is "2.0". */
function envelopeVerdict(value: unknown): Verdict {
  if (notAnObject(value)) return false;
  if (!isPlain(value)) return undefined;
  return value.jsonrpc === JSONRPC ? true : false;
}

/** JSONRPCRequestSchema. */
export function isRequest(value: unknown): Verdict {
  const base = envelopeVerdict(value);
  if (base !== true) return base;
  const message = value as Plain;
  if (typeof message.method !== "string") return false;
  return all(idVerdict(message.id, false), strictKeys(message, REQUEST_KEYS), paramsVerdict(message.params));
}

/** JSONRPCNotificationSchema. */
export function isNotification(value: unknown): Verdict {
  const base = envelopeVerdict(value);
  if (base !== true) return base;
  const message = value as Plain;
  if (typeof message.method !== "string") return false;
  return all(strictKeys(message, NOTIFICATION_KEYS), paramsVerdict(message.params));
}

/**
 * The two response schemas, as one function for both (`error`: JSONRPCErrorResponseSchema, else
 * JSONRPCResultResponseSchema): `result` a loose object whose `_meta` (serverInfo falls back, never
 * fails) is an object; `error` an object with an integer `code` and a string `message`.
 * One function with a flag, not one taking the payload check as a callback: an earlier shared
 * version was dropped for costing 7-13% more CPU. This one measured the same as the two copies it
 * replaced (session 8, isResultResponse + isErrorResponse + isResponse over plain messages, a
 * process each, 14 rounds: 0.479 against 0.480 µs per message over 200,000 and 0.357 against
 * 0.357 over 2,000,000, min; the first 20,000 within the rounds' spread).
 */
function responseVerdict(value: unknown, error: boolean): Verdict {
  const base = envelopeVerdict(value);
  if (base !== true) return base;
  const message = value as Plain;
  const payload = error ? message.error : message.result;
  if (payload === undefined) return false;
  let payloadVerdict: Verdict;
  if (notAnObject(payload)) payloadVerdict = false;
  else if (!isPlain(payload)) payloadVerdict = undefined;
  else if (error) payloadVerdict = typeof payload.message !== "string" ? false : Number.isSafeInteger(payload.code) ? true : undefined;
  else payloadVerdict = payload._meta === undefined || isPlain(payload._meta) ? true : undefined;
  return all(idVerdict(message.id, error), strictKeys(message, error ? ERROR_KEYS : RESULT_KEYS), payloadVerdict);
}

/** JSONRPCResultResponseSchema. */
export function isResultResponse(value: unknown): Verdict {
  return responseVerdict(value, false);
}

/** JSONRPCErrorResponseSchema. */
export function isErrorResponse(value: unknown): Verdict {
  return responseVerdict(value, true);
}

/** JSONRPCResponseSchema: the union of the two responses. */
export function isResponse(value: unknown): Verdict {
  const result = isResultResponse(value);
  if (result === true) return true;
  const error = isErrorResponse(value);
  if (error === true) return true;
  return result === false && error === false ? false : undefined;
}

/** ImplementationSchema (clientInfo): name and version strings, the optional strings absent or strings, no icons. */
function implementationValid(info: unknown): boolean {
  if (!isPlain(info) || typeof info.name !== "string" || typeof info.version !== "string" || info.icons !== undefined) return false;
  return [info.title, info.websiteUrl, info.description].every((field) => field === undefined || typeof field === "string");
}

const CAPABILITY_KEYS = ["experimental", "sampling", "elicitation", "roots", "extensions"] as const;

/**
 * True when the 2026-07-28 envelope schema (RequestMetaEnvelopeSchema) certainly accepts `meta` and
 * both required keys are present; false means "ask zod", never "invalid". Certain here: a
 * protocol version string, clientInfo absent or a plain name/version pair, capabilities an object
 * declaring none of the capabilities the schema types (what a client without sampling, elicitation
 * or roots sends), a usual progress token, no log level.
 */
export function isPlainEnvelope(meta: unknown): boolean {
  if (!isPlain(meta) || typeof meta[PROTOCOL_VERSION_KEY] !== "string" || meta[LOG_LEVEL_KEY] !== undefined) return false;
  if (idVerdict(meta.progressToken, true) !== true) return false;
  const info = meta[CLIENT_INFO_KEY];
  if (info !== undefined && !implementationValid(info)) return false;
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  return isPlain(capabilities) && CAPABILITY_KEYS.every((key) => capabilities[key] === undefined);
}
