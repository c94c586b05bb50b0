/**
 * Names whose values are credentials even when written literally (as `mcpServers` configs often
 * do). On its own, not in mcp/child-env.ts: the runtime's redaction reads it at start, and
 * child-env.ts imports the MCP client package, which a start otherwise does not need.
 *
 * PASS and PWD are credentials only as a word of their own or at a name's end (DB_PASS, PGPASS,
 * X-Db-Pass, MYSQL_PWD, PASSPHRASE): the words that merely contain PASS (BYPASS, COMPASS, SURPASS,
 * PASSTHROUGH, PASSIVE) are not, nor is PWD alone or OLDPWD, the shell's working directories.
 */
export const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|(?<!BY|COM|SUR|TRES|OVER|UNDER)PASS(?![A-Z]|[_-]?THR(?:OUGH|U)\b)|(?<!^|^OLD)PWD(?![A-Z]))/i;

/**
 * Names that say where a credential is kept, not what it is: N8N_MCP_TOKEN_STORE, GH_TOKEN_FILE,
 * SECRETS_DIR, AUTH_CONFIG_PATH. Their values are paths, which errors must quote for the user to
 * find the file (masked, "the OAuth token store [redacted] does not exist" says nothing); the
 * file's contents are the secret, and whoever reads them registers them (oauth-token-store.ts).
 */
const LOCATION_NAME = /[_-](STORE|FILE|PATH|DIR)$/i;

/** A JWT (`eyJ…` header, three base64url parts). */
const JWT = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;
/** A run of base64 characters as long as a generated secret, mixing letters and digits: no file or folder is named so. */
const RANDOM_RUN = /(?=[A-Za-z0-9+=_-]*\d)(?=[A-Za-z0-9+=_-]*[A-Za-z])[A-Za-z0-9+=_-]{32,}/;

/**
 * Whether a value looks like a path: it has a path separator or starts with `~` or `.`, and is not
 * a token (a JWT, a long random run). A location-named variable holding anything else is a token
 * typed into the wrong variable (N8N_MCP_TOKEN_STORE=eyJ…), and stays masked.
 */
export function looksLikePath(value: string): boolean {
  if (!/[\\/]/.test(value) && !/^[~.]/.test(value)) return false;
  return !looksGenerated(value);
}

/** Whether a value holds a generated secret by its look: a JWT, or a long random run of base64 characters. */
export function looksGenerated(value: string): boolean {
  return JWT.test(value) || RANDOM_RUN.test(value);
}

/**
 * Whether a variable or setting of this name holds a credential: SECRET_NAME, unless it names a
 * location and its value (when known) looks like a path.
 */
export function isSecretName(name: string, value?: string): boolean {
  if (!SECRET_NAME.test(name)) return false;
  return !LOCATION_NAME.test(name) || (value !== undefined && !looksLikePath(value));
}
