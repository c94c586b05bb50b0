import { embeddedCredentials } from "./embedded-credentials.js";
import { resolveAddress, resolveChildValue } from "./env-vars.js";
import type { Redactor } from "./redact.js";
import { isSecretName } from "./secret-name.js";

/**
 * How a variable a child program gets (a cli adapter's or an MCP server's `env`) is masked. On its
 * own, not in env-vars.ts: it reads embedded-credentials.ts, which reads env-vars.ts.
 */

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
