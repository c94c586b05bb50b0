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
