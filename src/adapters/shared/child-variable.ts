import { embeddedCredentials } from "./embedded-credentials.js";
import { interpolate, referencedVariables, resolveAddress, urlCredentials } from "./env-vars.js";
import type { Redactor } from "./redact.js";
import { isSecretName, looksLikePath } from "./secret-name.js";

/**
 * How a variable or argument a child program gets (a cli adapter's or an MCP server's `env`, an
 * MCP server's `args`) is masked. On its own, not in env-vars.ts: it reads embedded-credentials.ts,
 * which reads env-vars.ts.
 */

/**
 * A value shown as a filesystem path: it starts where a path starts (`/`, `~`, `.`, a drive
 * `C:\`) and holds none of `@ ; =` or whitespace. Anything else with a `/` in it may be a
 * credential: a connection string (`Server=db/inst;Password=…`), a URL without its scheme
 * (`alice:pw@db.internal/app`), a generated key with `/` among its characters.
 */
const PATH_START = /^(?:[/~.]|[A-Za-z]:[\\/])[^@;=\s]*$/;

/**
 * Resolve what a child program is given (an `args` entry, an `env` value whose name says nothing),
 * registering the referenced variables' values with the redactor, except a value that is a
 * filesystem path (PATH_START, looksLikePath) from a variable whose name does not say it is a
 * credential: CCDD_GATE_SCRIPT=/home/alice/tools/gate.py is where a program is, and masked it
 * would mask every `/home/alice/…` path in every result (a secret's first 12 characters are masked
 * wherever they begin a text). Such a path still gives up what embeddedCredentials and
 * urlCredentials find inside it. `declaredName`: the name the child gets the value under (an `env`
 * key), a credential's name as well (`GH_TOKEN: ${OPAQUE}` stays masked).
 */
export function resolveChildValue(value: string, hostEnv: NodeJS.ProcessEnv, where: string, redactor: Redactor | undefined, declaredName?: string): string {
  const resolved = interpolate(value, hostEnv, where);
  if (!redactor) return resolved;
  for (const name of referencedVariables(value)) {
    const hostValue = hostEnv[name];
    if (hostValue === undefined) continue;
    const credentialNamed = isSecretName(name, hostValue) || (declaredName !== undefined && isSecretName(declaredName, hostValue));
    if (credentialNamed || !PATH_START.test(hostValue) || !looksLikePath(hostValue)) {
      redactor.add(hostValue);
      continue;
    }
    for (const secret of [...embeddedCredentials(hostValue), ...urlCredentials(hostValue)]) redactor.add(secret);
  }
  return resolved;
}

/**
 * Names that say a variable holds where something is, not a credential: a host, a URL or
 * endpoint, a folder, a path, a port, a region, a log level (`GH_HOST`, `GH_CONFIG_DIR`,
 * `XDG_CONFIG_HOME`, `API_URL`). Results quote such values (a URL with the host in it, a config
 * path), so masking them would make results unreadable.
 */
const SETTING_NAME = /(?:^|[_-])(?:HOST|HOSTNAME|URL|URI|ENDPOINT|ORIGIN|DOMAIN|DIR|DIRECTORY|FOLDER|PATH|HOME|ROOT|PORT|REGION|ZONE|LEVEL|LOCALE|LANG|TZ|EDITOR|PAGER|COLOR|NO_COLOR)$/i;

/**
 * Resolve the value of a variable a child program gets (`GH_TOKEN`, `GH_HOST`). Masked in what
 * comes back (resolveChildValue: every `${VAR}` value it reads is registered but a path from a
 * variable not named like a credential) unless its name
 * says it is a setting (SETTING_NAME) and not a credential (isSecretName): `GH_HOST` and
 * `GH_CONFIG_DIR` stay readable, with only the credentials inside them masked: secret-named
 * variables and URL credentials (resolveAddress), and what embeddedCredentials finds in the
 * resolved text, since a setting's name does not make its value harmless: `SLACK_WEBHOOK_URL`
 * holds a webhook whose path is the credential, `TG_URL` a Telegram `/bot<id>:<token>/`,
 * `DB_URL` may hold `Server=…;Password=…`. `SLACK_XOXB: ${SLACK_XOXB}` or any other name that
 * says nothing stays masked whole, as a `${VAR}` in an mcpServers entry does.
 */
export function resolveChildVariable(name: string, value: string, hostEnv: NodeJS.ProcessEnv, where: string, redactor: Redactor | undefined): string {
  if (!SETTING_NAME.test(name) || isSecretName(name)) return resolveChildValue(value, hostEnv, where, redactor, name);
  const resolved = resolveAddress(value, hostEnv, where, redactor);
  for (const secret of embeddedCredentials(resolved)) redactor?.add(secret);
  return resolved;
}
