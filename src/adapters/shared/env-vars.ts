import type { Redactor } from "./redact.js";
import { isSecretName, SECRET_NAME } from "./secret-name.js";

/**
 * `${VAR}` references in adapter settings (headers, URLs, auth values, env blocks). They are
 * resolved on the host at use time, from the host environment, and the resolved values are never
 * shown: callers register them with a Redactor so they cannot leak into results or logs.
 */

/**
 * A literal `${` is written `$${`, as in docker-compose: a template string a server expects
 * (`$${name}`), a password holding `${`. Read as docker-compose reads it, but only in a run of `$`
 * right before `{`, each `$$` of the run is one `$` (`$$${A}` is `$` then A's value); `$$`
 * anywhere else is text as written, so a setting written before the escape existed keeps its meaning.
 */
const ESCAPED_DOLLAR = /\$\$(?=\$*\{)/g;

/** A reference (`${NAME}`, `${NAME:-default}`) or an escaped `$`: one scan reads both, so an escaped `${` never opens a reference. */
const REFERENCE = /\$\$(?=\$*\{)|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The references of `value` (escapes skipped), each with its name and default (undefined when it has none). */
function references(value: string): { name: string; fallback: string | undefined }[] {
  return [...value.matchAll(REFERENCE)].filter((m) => m[1] !== undefined).map((m) => ({ name: m[1] as string, fallback: m[2] }));
}

/**
 * Where each reference of `value` is, from its `$` to its `}` (`${NAME}`, `${NAME:-default}`;
 * escapes are none): the text a setting's own `{…}` syntax (a cli argv's `{name}` placeholder)
 * leaves to interpolate.
 */
export function referenceSpans(value: string): { start: number; end: number }[] {
  return [...value.matchAll(REFERENCE)].filter((m) => m[1] !== undefined).map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** `value` with its escapes read (`$${` is `${`): the text a setting that refers to no variable stands for. */
export function literalText(value: string): string {
  return value.replace(ESCAPED_DOLLAR, () => "$");
}

/** Whether the `${` at `at` opens a reference: it does unless an odd run of `$` stands before it (`$${`, `$$$${`). */
function opensAt(value: string, at: number): boolean {
  let run = 0;
  while (value[at - 1 - run] === "$") run++;
  return run % 2 === 0;
}

/** Where the first `${` at or after `from` that is no escape is, or -1. */
export function referenceOpeningAt(value: string, from = 0): number {
  for (let at = value.indexOf("${", from); at >= 0; at = value.indexOf("${", at + 1)) if (opensAt(value, at)) return at;
  return -1;
}

/** The variables `value` refers to without a default (`${NAME}`, not `${NAME:-x}`): unset, the value cannot be resolved. */
export function requiredReferences(value: string): string[] {
  return references(value)
    .filter((r) => r.fallback === undefined)
    .map((r) => r.name);
}

export class MissingVariableError extends Error {
  readonly variables: string[];
  constructor(variables: string[], where: string) {
    super(`${where} needs ${variables.map((v) => `$${v}`).join(", ")}, which ${variables.length > 1 ? "are" : "is"} not set on the host; set ${variables.length > 1 ? "them" : "it"} in the agent-tools server's environment`);
    this.name = "MissingVariableError";
    this.variables = variables;
  }
}

/**
 * Where `value` opens a `${` that no `}` closes ("Bearer ${TOKEN"), or -1. Such text is not a
 * reference: it would reach the server as it is written, so the config check refuses it.
 */
export function unclosedReferenceAt(value: string): number {
  // Every `${` after the last `}` is unclosed, and none before it is.
  return referenceOpeningAt(value, value.lastIndexOf("}") + 1);
}

/** A reference's opening and default, at the start of a text: `${NAME:-` and what follows up to the first `}`. */
const DEFAULT_HERE = /^\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}]*)/;

/**
 * Whether a default holds a reference (`${A:-${B}}`): a default is plain text that ends at the first
 * `}`, so `${B}` would reach the server as text. Not resolved (a shell would): refused where settings are read.
 */
function hasNestedDefault(value: string): boolean {
  for (let at = referenceOpeningAt(value); at >= 0; at = referenceOpeningAt(value, at + 2)) {
    const fallback = DEFAULT_HERE.exec(value.slice(at))?.[1];
    if (fallback !== undefined && referenceOpeningAt(fallback) >= 0) return true;
  }
  return false;
}

/** Programs that read `${…}` in their arguments themselves: a script given to `sh -c` and the like. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"]);

/** Whether `command` (a path or a bare name, maybe `${VAR}`-free) starts a POSIX shell. */
export function isShellCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  const base = command.trim().split(/[\\/]/).pop() ?? "";
  return SHELLS.has(base.replace(/\.exe$/i, "").toLowerCase());
}

/** A reference the adapters resolve, at the start of a text: `${NAME}` or `${NAME:-default}`. */
const REFERENCE_HERE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;

/**
 * `${…}` forms a settings file takes besides REFERENCE_HERE, as the file's reader rewrites them
 * (the config file's `${env:NAME}`, `${input:id}`, `${workspaceFolder}`): `pattern` matches one at
 * the start of a text, `forms` says them in an error.
 */
export interface OtherReferenceForms {
  pattern: RegExp;
  forms: string;
}

/**
 * The first `${…}` of `value` that is no form resolved here (a shell's `${V:?msg}`, `${V:=x}`,
 * `${V:+x}`, `${V-x}`, `${ V }`), or undefined. Such text would reach the server as written.
 */
function unknownFormIn(value: string, other: OtherReferenceForms | undefined): string | undefined {
  for (let at = referenceOpeningAt(value); at >= 0; at = referenceOpeningAt(value, at)) {
    const rest = value.slice(at);
    const known = REFERENCE_HERE.exec(rest) ?? other?.pattern.exec(rest);
    if (known) {
      at += known[0].length;
      continue;
    }
    return rest.slice(0, rest.indexOf("}") + 1);
  }
  return undefined;
}

/**
 * `${V:?…}` for `${V:?must be set}`: the name and the operator, not what follows (the text of a
 * `:+` or `:=` form may be a credential written in place).
 */
function shownForm(form: string): string {
  const inner = form.slice(2, -1);
  const head = /^\s*[A-Za-z0-9_]*\s*[^A-Za-z0-9_\s}]{0,2}/.exec(inner)?.[0] ?? "";
  return head.length < inner.length ? `\${${head}…}` : form;
}

/** How a refusal says the escape, for a `${` that was plausibly meant as text. */
const LITERAL_OPENING = "$${ for a literal '${'";

/**
 * What is wrong with the `${...}` text of a setting that is resolved from the host, or undefined:
 * the one rule of the config file's entries and of plugin.json's settings. Said after the field's
 * name ("field 'env.TOKEN' opens '${' without…"). `other`: the forms the file takes besides
 * `${NAME}` and `${NAME:-default}`.
 */
export function referenceTextProblem(value: string, other?: OtherReferenceForms, options: { shellScript?: boolean } = {}): string | undefined {
  const forms = `\${NAME} or \${NAME:-default}${other ? ` (or ${other.forms})` : ""}`;
  if (unclosedReferenceAt(value) >= 0) return `opens '\${' without a closing '}'; write \${NAME} (or \${NAME:-default}), or ${LITERAL_OPENING} (a template or a password that holds one)`;
  if (hasNestedDefault(value)) return `has a reference inside a default (\${A:-\${B}}), which is not resolved (it would reach the server as text); write the default as plain text, \${A:-value} (${LITERAL_OPENING}), or set A from B in the environment`;
  // A shell's own `${1}`, `${x%.*}` or `${V:?…}` in a script it is given (`sh -c '…'`) are the
  // shell's to read: passed on as written, as the other clients do.
  const unknown = options.shellScript ? undefined : unknownFormIn(value, other);
  if (unknown) return `has '${shownForm(unknown)}', which is not a reference resolved here (it would reach the server as text; shell forms such as \${V:?message}, \${V:=x}, \${V:+x} and \${V-x} are not taken, nor spaces inside the braces); write ${forms}, or $${shownForm(unknown)} for the text as written ('$\${' is a literal '\${')`;
  return undefined;
}

/** The variable names a value refers to. */
export function referencedVariables(value: string): string[] {
  return references(value).map((r) => r.name);
}

/**
 * Replace every `${VAR}` (or `${VAR:-default}`) in `value`, and read its escapes (`$${` is `${`,
 * in a default too). A missing variable without a default throws MissingVariableError naming it
 * and `where` it was needed. The one place escapes are read: every other reader of a setting
 * (the config's checks, the other clients' forms, the redactor) leaves them as written.
 */
export function interpolate(value: string, env: NodeJS.ProcessEnv, where: string): string {
  const missing: string[] = [];
  const out = value.replace(REFERENCE, (_, name: string | undefined, fallback: string | undefined) => {
    // An escaped `$` (the first two of `$${`): one `$`, and its `{` stays text.
    if (name === undefined) return "$";
    const resolved = env[name];
    if (resolved !== undefined && resolved !== "") return resolved;
    if (fallback !== undefined) return literalText(fallback);
    missing.push(name);
    return "";
  });
  if (missing.length) throw new MissingVariableError([...new Set(missing)], where);
  return out;
}

/**
 * Resolve a value that may reference host variables, and register the referenced variables'
 * values with the redactor: they are usually credentials. Only those values, not the whole
 * string ("Accept: application/json" must not become a redaction target).
 */
export function resolveSecretAware(value: string, hostEnv: NodeJS.ProcessEnv, where: string, redactor: Redactor | undefined): string {
  const resolved = interpolate(value, hostEnv, where);
  // The host values the template used are the secrets (not a `:-default`, not the literal text).
  for (const name of referencedVariables(value)) redactor?.add(hostEnv[name]);
  return resolved;
}

/**
 * Resolve a setting that is an address, not a credential (a REST baseUrl, an MCP server's url, a
 * command or working folder): its variables (GITHUB_API_URL, TASKS_API_BASE) name where the
 * service is, and results quote that address everywhere (html_url, a task's text). Masking it
 * whole would corrupt those results. Registered with the redactor are only a variable whose name
 * looks secret (its whole value, as the runtime masks it anyway) and, of the resolved text read as
 * a URL, the parts that carry a credential: see urlCredentials.
 */
export function resolveAddress(value: string, hostEnv: NodeJS.ProcessEnv, where: string, redactor: Redactor | undefined): string {
  const resolved = interpolate(value, hostEnv, where);
  if (!redactor) return resolved;
  for (const name of referencedVariables(value)) if (isSecretName(name, hostEnv[name])) redactor.add(hostEnv[name]);
  for (const secret of urlCredentials(resolved)) redactor.add(secret);
  return resolved;
}

/** A query parameter whose name says its value is a credential (`?key=`, `?api_key=`, `?sig=`). */
const SECRET_QUERY_NAME = /^(?:key|sig|signature|code|auth)$/i;

/** Whether a URL's query parameter of this name holds a credential by its name (`password`, `api_key`, `key`, `sig`…). */
export function secretQueryName(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_QUERY_NAME.test(name);
}

/** A value shaped like a generated key or token: long, one word of token characters, letters and digits. */
export function tokenLike(value: string): boolean {
  return value.length >= 20 && /^[\w.~+/=-]+$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value);
}

/**
 * The credential parts of a URL, in the forms a text may quote them (as written and decoded): the
 * userinfo password (and the user name when it stands alone, `https://TOKEN@host`, or looks like a
 * token), and query values whose name looks secret or whose value looks like a token. A text that
 * does not start with `scheme://` is read as `http://` + text, so `user:pass@host` (a scheme forgotten) still
 * gives up its password. Nothing else: the host, path and ordinary query values stay readable.
 */
export function urlCredentials(text: string): string[] {
  let url: URL;
  try {
    // Without "scheme://", `user:pass@host` would parse with "user:" as its scheme.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    return [];
  }
  const parts: string[] = [];
  if (url.password) parts.push(url.password);
  if (url.username && (!url.password || tokenLike(decodeSafely(url.username)))) parts.push(url.username);
  for (const [name, value] of url.searchParams) if (value && (secretQueryName(name) || tokenLike(value))) parts.push(value);
  const out = new Set<string>();
  for (const part of parts) {
    out.add(part);
    out.add(decodeSafely(part));
  }
  return [...out];
}

/** `decodeURIComponent`, or the text as it is when it holds a `%` that is no escape. */
export function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
