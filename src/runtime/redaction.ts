import { isSecretName, looksLikePath, SECRET_NAME } from "../adapters/shared/secret-name.js";
import { writtenCredentials } from "../adapters/shared/embedded-credentials.js";
import { literalText, referencedVariables } from "../adapters/shared/env-vars.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { envAlternatives } from "../plugins/requirements.js";

/**
 * The one redactor of a runtime: every result and error of every plugin passes through it on its
 * way out (result shaping), whatever adapter produced it. It knows the secrets the runtime itself
 * resolves, before any call: the host values of the variables plugins name (`requires.env`,
 * `${VAR}` in their settings), every host variable whose name says it is a credential, and
 * literal credential-looking values written into config entries (`env`, `headers`, `args`, and
 * the credentials inside any literal text of them or of `url`: see writtenCredentials). A literal
 * is registered as it is sent, its `$${` escapes read (`pa$${ss` is the password `pa${ss`). Adapters
 * register what they learn later (a login's session token) in the same instance, through
 * AdapterOptions.redactor.
 *
 * Referenced variables whose names do not look secret (OLLAMA_HOST, a base URL) are left alone:
 * masking them would scrub ordinary URLs out of results.
 */

/** Keys of header/env blocks whose literal values are credentials whatever their shape. */
const SECRET_KEY = /^(authorization|proxy-authorization|cookie|x-api-key)$/i;

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) collectStrings(item, into);
}

/** The credentials inside a literal text (a connection URL's password, a connection string's `Password=`, a webhook's path). */
function addEmbedded(text: unknown, into: Set<string>): void {
  if (typeof text === "string") for (const secret of writtenCredentials(text)) into.add(secret);
}

function literalSecrets(block: unknown, into: Set<string>): void {
  if (!block || typeof block !== "object" || Array.isArray(block)) return;
  for (const [key, value] of Object.entries(block as Record<string, unknown>)) {
    // Whatever the key is called (CONN_STRING, SLACK_WEBHOOK): its value may carry a credential inside.
    addEmbedded(value, into);
    if (typeof value !== "string" || referencedVariables(value).length > 0) continue;
    if (SECRET_NAME.test(key) || SECRET_KEY.test(key)) into.add(literalText(value).replace(/^(bearer|basic|token)\s+/i, ""));
  }
}

/** A header written as one argument (`--header "Authorization: Bearer …"`, as mcp-remote takes it). */
const HEADER_ARGUMENT = /^\s*(authorization|proxy-authorization|cookie|x-api-key|api-key)\s*:\s*(.+)$/i;

/**
 * Literal credentials in a command's arguments, as `mcpServers` entries often carry them:
 * `--api-key VALUE`, `--token=VALUE`, `--db-password VALUE` (an option whose name says it is a
 * credential, dashes read as underscores, and a value that could be one), and header arguments. A server that repeats its
 * command line (a usage error, a crash report) would otherwise show them.
 */
function argumentSecrets(args: unknown, into: Set<string>): void {
  if (!Array.isArray(args)) return;
  const secretOption = (option: string) => SECRET_NAME.test(option.replace(/^-+/, "").replace(/-/g, "_"));
  // An option value that could be a credential: `--auth-type bearer` or `--token-mode oauth` names a
  // word that results use everywhere, and masking it there would scrub ordinary text.
  const credentialLike = (value: string) => value.length >= 8 && !/\s/.test(value) && (/\d/.test(value) || value.length >= 20);
  args.forEach((written, i) => {
    // A connection URL as a positional argument (server-postgres) or an option's value (`--db-url=…`).
    addEmbedded(written, into);
    if (typeof written !== "string" || referencedVariables(written).length > 0) return;
    const arg = literalText(written);
    const header = HEADER_ARGUMENT.exec(arg);
    if (header) into.add(header[2]!.replace(/^(bearer|basic|token)\s+/i, "").trim());
    const eq = arg.indexOf("=");
    if (arg.startsWith("-") && eq > 0 && secretOption(arg.slice(0, eq)) && credentialLike(arg.slice(eq + 1))) into.add(arg.slice(eq + 1));
    const next: unknown = args[i + 1];
    if (arg.startsWith("-") && eq < 0 && secretOption(arg) && typeof next === "string" && !next.startsWith("-") && credentialLike(next) && referencedVariables(next).length === 0) into.add(literalText(next));
  });
}

/** The values of the host's variables whose names say they are credentials. */
export function hostSecrets(env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) if (value && isSecretName(name, value)) secrets.push(value);
  return secrets;
}

/**
 * The secret values one manifest resolves on this host, beyond hostSecrets: literal credentials
 * in its settings and the values of the variables its `auth` block names, whatever they are called.
 * Known as soon as the manifest is read, before its code loads (plugin code that fails to load may
 * put them in its error).
 */
export function manifestSecrets(manifest: PluginManifest, env: NodeJS.ProcessEnv): string[] {
  const secrets = new Set<string>();
  const names = new Set<string>();
  for (const entry of manifest.requires.env) for (const name of envAlternatives(entry)) names.add(name);
  const texts: string[] = [];
  collectStrings(manifest.adapter, texts);
  for (const text of texts) for (const name of referencedVariables(text)) names.add(name);
  if (typeof manifest.adapter === "object") {
    literalSecrets(manifest.adapter.env, secrets);
    argumentSecrets((manifest.adapter as { args?: unknown }).args, secrets);
    // A CLI block's tools carry their own argument lists.
    const tools = (manifest.adapter as { tools?: unknown }).tools;
    if (Array.isArray(tools)) for (const tool of tools) argumentSecrets((tool as { argv?: unknown } | null)?.argv, secrets);
    literalSecrets(manifest.adapter.headers, secrets);
    addEmbedded((manifest.adapter as { url?: unknown }).url, secrets);
    // An auth block's values are credentials whatever the variable is called.
    // Except tokenStore: a path, quoted by the errors that ask to rewrite the file, unless what it
    // holds (literally or through its variable) is no path but a token typed into the wrong place.
    const auth: string[] = [];
    const { tokenStore, ...credentials } = (manifest.adapter.auth ?? {}) as Record<string, unknown>;
    collectStrings(credentials, auth);
    if (typeof tokenStore === "string") {
      const storeVariables = referencedVariables(tokenStore);
      if (storeVariables.length === 0 && !looksLikePath(tokenStore)) secrets.add(literalText(tokenStore));
      for (const name of storeVariables) if (env[name] && !looksLikePath(env[name] as string)) secrets.add(env[name] as string);
    }
    for (const text of auth) for (const name of referencedVariables(text)) if (env[name]) secrets.add(env[name] as string);
    const tokenEnv = (manifest.adapter.auth as { tokenEnv?: unknown } | undefined)?.tokenEnv;
    if (typeof tokenEnv === "string" && env[tokenEnv]) secrets.add(env[tokenEnv] as string);
  }
  for (const name of names) if (env[name] && isSecretName(name, env[name])) secrets.add(env[name] as string);
  return [...secrets];
}
