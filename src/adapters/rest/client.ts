import { anySignal } from "../../any-signal.js";
import type { Logger } from "../types.js";
import { echoed } from "../../runtime/argument-value.js";
import { parseJsonLossless } from "../../json-text-value.js";
import { countBody, maxResponseBytesFrom, readCappedBody } from "../shared/capped-body.js";
import { AdapterError, couldNotReach, headersOverflow, isUnresolvedHost, messageWithCauses, unreachableCode, unresolvedHostHint } from "../shared/errors.js";
import { MissingVariableError, referencedVariables, resolveAddress, resolveSecretAware } from "../shared/env-vars.js";
import type { Redactor } from "../shared/redact.js";
import { describeBinary, isBinaryBody } from "../shared/binary-body.js";
import { createAuth, refusedCredentialsHint, type Auth } from "./auth.js";
import { credentialsRefusedHint, upstreamStatusAdvice } from "../shared/upstream-status.js";
import { applyRestErrorRules } from "./error-rules.js";
import { RestError, UrlGuardError } from "./errors.js";
import type { RestConnectionSpec } from "./spec.js";
import { BaseUrlError, checkRawPath, parseBaseUrl, resolveServerUrl, resolveUnderBase, type BaseUrl, type BaseUrlSource } from "./url-guard.js";

/**
 * One HTTP exchange with the backend: base URL and headers resolved from `${VAR}`s at call time,
 * auth applied, a deadline (timeoutMs, default 30 s) combined with the caller's abort signal,
 * redirects followed only while they stay under the base URL (so credentials never follow a
 * redirect elsewhere), and the response decoded: JSON when the content type says JSON, text for
 * text, a short descriptor for binary bodies. A 2xx labelled JSON that does not parse is an
 * UPSTREAM_ERROR (something other than the API answered), not a text result. Bodies are read as streams up to maxResponseBytes
 * (8 MiB by default): a larger answer fails with RESULT_TOO_LARGE without being read further.
 * Non-2xx answers throw RestError UPSTREAM_ERROR with status, method, path and a redacted body
 * excerpt (≤300 chars); of an error body only the first 64 KiB are read. Unless one of the
 * manifest's `errors` rules matches (those come first), `details.status` holds the status, and the
 * hint is the status's (shared/upstream-status.ts): a 429 or 5xx to retry the same call (after
 * `details.retryAfterSeconds`, from Retry-After), a 4xx to fix what the service refused (the auth's
 * variables, for refused credentials). Nothing is retried here.
 */

export type RequestBody = { json: unknown } | { raw: string; contentType: string };

export interface OutgoingRequest {
  method: string;
  /** An absolute URL already checked to be under the base (see `url`). */
  url: URL;
  headers?: Record<string, string>;
  body?: RequestBody;
}

export interface RestResponse {
  status: number;
  headers: Headers;
  url: URL;
  /** Parsed JSON, text, null (no body), or `{ binary: true, contentType, bytes }`. */
  data: unknown;
}

export interface RestClientOptions {
  connection: RestConnectionSpec;
  env: NodeJS.ProcessEnv;
  log: Logger;
  redactor: Redactor;
  /** Where the base URL was written when not in a plugin.json (a host variable): its refusals name it. */
  baseUrlSource?: BaseUrlSource;
  /** Where a hint that asks to check the base URL says it is set, when the URL names no variable itself. */
  baseUrlSetting?: BaseUrlSetting;
}

/**
 * Where the base URL is set, when its text names no `${VAR}`: a module adapter that builds its
 * block in code names the host variable it read the URL from (AdapterOptions.settings.hostVariables
 * .baseUrl: the ollama plugin's OLLAMA_URL, unset meaning localhost), since no plugin.json holds
 * it; an openapi block may have taken it from its spec.
 */
export interface BaseUrlSetting {
  variable?: string;
  openapi?: boolean;
}

const EXCERPT = 300;
/**
 * Of a request's method, path and query as an error names it, this many characters: the query
 * carries the caller's arguments (a 100 KB search text came back whole in "GET /tasks?q=… answered HTTP 431").
 */
const WHERE_CHARS = 200;
/** Of a success that should be JSON and is not, this many characters are quoted. */
const NOT_JSON_EXCERPT = 200;
/** Of a failure's body, enough for the excerpt and the plugin's `errors` rules. */
const ERROR_BODY_BYTES = 64 * 1024;
const MAX_REDIRECTS = 5;
const DEFAULT_ACCEPT = "application/json, text/plain;q=0.9, */*;q=0.8";

/**
 * Whether a failure says the credentials were refused: a 401, or a 403 without a sign of rate
 * limiting (GitHub answers a used-up rate limit with 403 and x-ratelimit-remaining: 0).
 */
function refusedCredentials(response: RestResponse): boolean {
  return response.status === 401 || (response.status === 403 && !rateLimited403(response));
}

/** A 403 that says it is a rate limit (x-ratelimit-remaining: 0, a Retry-After): to wait for, not credentials to fix. */
function rateLimited403(response: RestResponse): boolean {
  const { headers } = response;
  return response.status === 403 && (headers.get("x-ratelimit-remaining")?.trim() === "0" || headers.has("retry-after"));
}

/**
 * Whether a body is one JSON text: application/json, any application/…+json (problem+json,
 * vnd.api+json), text/json, with parameters or not. Not the formats of many JSON texts in one body
 * (application/json-seq, application/json-lines, x-ndjson): those stay text, as they are sent.
 */
function isJsonContentType(contentType: string | null): boolean {
  return !!contentType && /^(?:application\/(?:[\w.+-]*\+)?json|text\/json)\s*(?:;|$)/i.test(contentType.trim());
}

export class RestClient {
  readonly #options: RestClientOptions;
  readonly #auth: Auth;
  #base: { raw: string; parsed: BaseUrl } | undefined;

  constructor(options: RestClientOptions) {
    this.#options = options;
    this.#auth = createAuth(options.connection.auth, options.env, options.redactor, (path, body, signal) => this.#login(path, body, signal));
  }

  get redactor(): Redactor {
    return this.#options.redactor;
  }

  /** The base URL, `${VAR}`s resolved now (so a changed environment is honoured). */
  base(): BaseUrl {
    const { connection, env, redactor } = this.#options;
    // An address, masked only where it carries a credential: results quote it (links, echoed text).
    const raw = resolveAddress(connection.baseUrl, env, "baseUrl", redactor);
    if (this.#base?.raw === raw) return this.#base.parsed;
    let parsed: BaseUrl;
    try {
      parsed = parseBaseUrl(raw, this.#options.baseUrlSource);
    } catch (error) {
      // The manifest's (or the variable's) fix, BaseUrlError.hint, not the generic "set a variable" one.
      const hint = error instanceof BaseUrlError ? { hint: error.hint } : {};
      throw new RestError("NOT_CONFIGURED", redactor.redact((error as Error).message), undefined, hint);
    }
    this.#base = { raw, parsed };
    return parsed;
  }

  /** A raw path (`/x/y?q=1`) from outside the manifest: checked, then resolved under the base. */
  urlForRawPath(raw: string): URL {
    const { path, search } = checkRawPath(raw);
    return resolveUnderBase(this.base(), path, search);
  }

  /** Send one request. `signal` is the caller's (ctx.signal); the deadline is added here. */
  async send(request: OutgoingRequest, signal?: AbortSignal): Promise<RestResponse> {
    let response = await this.#exchange(request, signal);
    if (this.#auth.retryOn.includes(response.status) && this.#auth.invalidate(response.credential)) {
      this.#options.log.debug(`rest: ${response.status}, logging in again and retrying once`, { method: request.method, path: request.url.pathname });
      response = await this.#exchange(request, signal);
    }
    if (response.status < 200 || response.status > 299) throw this.#upstreamError(request, response, refusedCredentials(response));
    const { credential: _credential, ...answer } = response; // the token stays in here
    return answer;
  }

  async #login(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    let url: URL;
    try {
      url = this.urlForRawPath(path);
    } catch (error) {
      // parseAuth refuses such a url at load; a connection built in code reaches here. The fix is
      // the configuration's, never the caller's arguments.
      if (!(error instanceof UrlGuardError)) throw error;
      throw new RestError("NOT_CONFIGURED", `the login url (adapter.auth.url) is refused: ${this.#options.redactor.redact(error.message)}`, undefined, {
        hint: "Fix adapter.auth.url in the plugin's plugin.json to a path under adapter.baseUrl (e.g. \"/auth/login\"), then restart the server.",
      });
    }
    const response = await this.#exchange({ method: "POST", url, body: { json: body } }, signal, false);
    if (response.status < 200 || response.status > 299) {
      // The plugin's `errors` rules apply to a failed login too: keep their code, hint and details.
      // A login answers a wrong password with 400 as often as with 401 (PocketBase does).
      const refused = response.status >= 400 && response.status <= 499 && response.status !== 429;
      const error = this.#upstreamError({ method: "POST", url }, response, refused);
      error.message = `login failed: ${error.message}`;
      throw error;
    }
    return response.data;
  }

  /** `refused`: the status says the credentials were refused; without a matching rule, the hint names the auth's variables. */
  #upstreamError(request: Pick<OutgoingRequest, "method" | "url">, response: RestResponse, refused = false): RestError {
    const { redactor } = this.#options;
    const text = isBinaryBody(response.data) ? describeBinary(response.data) : typeof response.data === "string" ? response.data : response.data == null ? "" : JSON.stringify(response.data);
    const compact = redactor.redact(text.replace(/\s+/g, " ").trim());
    const excerpt = compact.length > EXCERPT ? `${compact.slice(0, EXCERPT - 1)}…` : compact;
    // Masked before the cut: a secret cut in two would no longer be recognised.
    const where = echoed(redactor.redact(`${request.method} ${request.url.pathname}${request.url.search}`), WHERE_CHARS);
    const rules = this.#options.connection.errors;
    const applied = rules?.length
      ? applyRestErrorRules(rules, { status: response.status, method: request.method, path: request.url.pathname, headers: response.headers, data: response.data })
      : undefined;
    if (applied) {
      const extra: { hint?: string; details: Record<string, unknown> } = { details: redactor.redactValue({ status: response.status, ...applied.details }) };
      if (applied.hint !== undefined) extra.hint = redactor.redact(applied.hint);
      return new RestError(applied.code, `${where} answered HTTP ${response.status}: ${redactor.redact(applied.message)}`, response.status, extra);
    }
    // Refused credentials (a refused login's 400 too): the variables the auth reads when it reads any, the exact fix, else the
    // status's words for credentials, never "fix the argument" (a login takes none of the call's).
    const credentialsHint = refused ? (refusedCredentialsHint(this.#options.connection.auth, response.status) ?? credentialsRefusedHint(response.status)) : undefined;
    const advice = credentialsHint
      ? { details: { status: response.status }, hint: credentialsHint }
      : (upstreamStatusAdvice(response.status, { retryAfter: response.headers.get("retry-after"), rateLimited: rateLimited403(response) }) ?? { details: { status: response.status } });
    // A 304 has no body by definition: said so, rather than as an empty quote.
    const said = excerpt ? `: ${excerpt}` : response.status === 304 ? " (Not Modified), with no body" : "";
    return new RestError("UPSTREAM_ERROR", `${where} answered HTTP ${response.status}${said}`, response.status, advice);
  }

  /**
   * Where the base URL is set, for a hint that asks to check it: the variable(s) it is made of
   * (in the server's environment), else the variable a module adapter named (BaseUrlSetting),
   * else the plugin's adapter.baseUrl (an openapi block without one takes the spec's first servers
   * URL: said only for an openapi block).
   */
  #baseUrlSetting(): string {
    const { connection, baseUrlSetting } = this.#options;
    const named = referencedVariables(connection.baseUrl);
    const variables = named.length ? named : baseUrlSetting?.variable ? [baseUrlSetting.variable] : [];
    if (variables.length) return `that ${variables.join(", ")} (the base URL's variable${variables.length > 1 ? "s" : ""}, in the agent-tools server's environment)`;
    return `that adapter.baseUrl in the plugin's plugin.json${baseUrlSetting?.openapi ? " (for an openapi block without one, the spec's first servers URL)" : ""}`;
  }

  /**
   * Nothing answered at the base URL's host (a name that does not resolve, a refused connection):
   * the service is down or the base URL is wrong; no argument can fix that, so the error names the
   * host and the setting, not the call.
   */
  #unreachableError(where: string, url: URL, code: string): RestError {
    const host = this.#options.redactor.redact(url.host);
    return new RestError("UPSTREAM_ERROR", `${where} failed: ${couldNotReach(host, code)}`, undefined, {
      hint: `${isUnresolvedHost(code) ? unresolvedHostHint("the base URL", code, this.#baseUrlSetting()) : `Nothing answered at the base URL's host ${host}: start the service, or check ${this.#baseUrlSetting()} names the right host and port`}, and tell the user. Changing the arguments will not help.`,
      details: { host, code },
    });
  }

  /**
   * A success whose Content-Type says JSON but whose body does not parse: a captive portal, a
   * proxy's page or a wrong base URL answered, not the API. Returned as data it would pass for a
   * result (and skip the tool's shaping), so it fails, with the body's first characters.
   */
  #notJsonError(where: string, status: number, contentType: string, text: string): RestError {
    const { redactor } = this.#options;
    // Masked whole, then cut: a credential the cut went through is then already masked.
    const shown = echoed(redactor.redact(text.replace(/\s+/g, " ").trim()), NOT_JSON_EXCERPT);
    const check = `check ${this.#baseUrlSetting()} points at the API itself`;
    return new RestError("UPSTREAM_ERROR", `${where} answered HTTP ${status} with Content-Type '${redactor.redact(contentType)}' but a body that is not JSON: ${shown}`, status, {
      hint: `The service answered something other than its API (a proxy or captive portal page, or a wrong base URL): ${check}, and tell the user. Changing the arguments will not help.`,
      details: { status, contentType: redactor.redact(contentType) },
    });
  }

  async #exchange(request: OutgoingRequest, callerSignal: AbortSignal | undefined, withAuth = true): Promise<RestResponse & { credential?: string }> {
    const { connection, env, redactor } = this.#options;
    const timeout = AbortSignal.timeout(connection.timeoutMs);
    const signal = callerSignal ? anySignal([callerSignal, timeout]) : timeout;
    const base = this.base();
    let method = request.method.toUpperCase();
    let url = new URL(request.url);
    let body = request.body;
    const where = () => echoed(redactor.redact(`${method} ${url.pathname}`), WHERE_CHARS);
    try {
      for (let hop = 0; ; hop++) {
        const headers = new Headers();
        for (const [name, value] of Object.entries(connection.headers)) headers.set(name, resolveSecretAware(value, env, `headers.${name}`, redactor));
        for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
        if (!headers.has("accept")) headers.set("accept", DEFAULT_ACCEPT);
        const sent = new URL(url);
        const credential = withAuth ? await this.#auth.apply(sent, headers, signal) : undefined;
        let payload: string | undefined;
        if (body && "json" in body) {
          payload = JSON.stringify(body.json);
          if (!headers.has("content-type")) headers.set("content-type", "application/json");
        } else if (body) {
          payload = body.raw;
          if (!headers.has("content-type")) headers.set("content-type", body.contentType);
        }
        const response = await fetch(sent, { method, headers, body: payload, signal, redirect: "manual" });
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel().catch(() => undefined);
          if (hop >= MAX_REDIRECTS) throw new RestError("UPSTREAM_ERROR", `${where()} redirected more than ${MAX_REDIRECTS} times`);
          try {
            url = resolveServerUrl(location, url, base, "redirect target");
          } catch (error) {
            throw new RestError("UPSTREAM_ERROR", `${where()} redirected outside the base URL; refused: ${redactor.redact((error as Error).message)}`);
          }
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          continue;
        }
        const ok = response.status >= 200 && response.status <= 299;
        const limit = ok ? (connection.maxResponseBytes ?? maxResponseBytesFrom(env)) : ERROR_BODY_BYTES;
        const notJson = (text: string, contentType: string) => this.#notJsonError(where(), response.status, contentType, text);
        return { status: response.status, headers: response.headers, url, data: await decode(response, method, limit, where(), !ok, notJson), credential };
      }
    } catch (error) {
      if (error instanceof AdapterError || error instanceof MissingVariableError) throw error;
      if (timeout.aborted && !callerSignal?.aborted) {
        throw new RestError("UPSTREAM_TIMEOUT", `${where()} did not answer within ${connection.timeoutMs} ms`);
      }
      if (callerSignal?.aborted) throw new RestError("UPSTREAM_ERROR", `${where()} was cancelled`);
      const unreachable = unreachableCode(error);
      if (unreachable) throw this.#unreachableError(where(), url, unreachable);
      const overflow = headersOverflow(error);
      if (overflow) throw new RestError("UPSTREAM_ERROR", `${where()} failed: ${overflow.words}`, undefined, { hint: overflow.hint, details: overflow.details });
      throw new RestError("UPSTREAM_ERROR", `${where()} failed: ${redactor.redact(messageWithCauses(error))}`);
    }
  }
}

/**
 * The JSON text each parsed body object came from, for a value too deeply nested to mask as a
 * value (redactValueOrText): it goes on as that text. Weak: kept only while the body is.
 */
const bodyTexts = new WeakMap<object, string>();

/** The JSON text a parsed response body came from; undefined for anything else. */
export function jsonBodyText(data: unknown): string | undefined {
  return data && typeof data === "object" ? bodyTexts.get(data) : undefined;
}

async function decode(response: Response, method: string, limit: number, what: string, truncate: boolean, notJson: (text: string, contentType: string) => Error): Promise<unknown> {
  if (method === "HEAD" || response.status === 204 || response.status === 304) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  const contentType = response.headers.get("content-type");
  const json = isJsonContentType(contentType);
  // Text too: a stream of JSON texts (json-seq, json-lines, ndjson), which is not one to parse.
  if (json || !contentType || /^text\/|xml|json|x-www-form-urlencoded|javascript/i.test(contentType)) {
    const { bytes, truncated } = await readCappedBody(response, limit, what, { truncate });
    const text = decoderFor(contentType).decode(bytes);
    if (text.trim() === "") return null;
    // An error body labelled JSON or text, or any body not labelled, that is not text (a compressed
    // or binary page, a file served without a type): quoted, it would be escaped garbage; it is
    // described like a binary body instead.
    if ((truncate || !contentType) && looksBinary(text)) return { binary: true, contentType, bytes: bytes.length, ...(truncated ? { atLeast: true } : {}) };
    if (!json || truncated) return text;
    try {
      // A number whose value JSON.parse would change (an id past 2^53) becomes a string of its
      // exact text; the rest of the body keeps its structure, so pagination and shaping read it.
      const value = parseJsonLossless(text);
      if (value && typeof value === "object") bodyTexts.set(value, text);
      return value;
    } catch {
      // An error answer keeps its text for the excerpt; a success that is not JSON is no result.
      if (truncate) return text;
      throw notJson(text, contentType ?? "");
    }
  }
  // A binary body is described, not kept: its size is counted (up to the cap) and dropped.
  const { bytes, more } = await countBody(response, limit);
  return { binary: true, contentType, bytes, ...(more ? { atLeast: true } : {}) };
}

/**
 * A decoder for the body's stated charset (`text/plain; charset=iso-8859-1`), when Node knows it;
 * UTF-8 otherwise, which is also JSON's.
 */
function decoderFor(contentType: string | null): InstanceType<typeof TextDecoder> {
  const charset = contentType ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] : undefined;
  if (charset) {
    try {
      return new TextDecoder(charset);
    } catch {
      // A charset Node does not know: UTF-8, as before.
    }
  }
  return new TextDecoder();
}

/** NULs, or more than one character in ten a control character or an undecodable byte (U+FFFD), in the first KiB. */
function looksBinary(text: string): boolean {
  const head = text.slice(0, 1024);
  if (head.includes("\u0000")) return true;
  // eslint-disable-next-line no-control-regex
  const odd = head.match(/[\u0001-\u0008\u000b\u000e-\u001f\u007f\ufffd]/g)?.length ?? 0;
  return odd * 10 > head.length;
}

export { UrlGuardError };
