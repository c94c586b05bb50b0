import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileShapeError, readProblem, readSettingsFileSync } from "../bounded-file.js";
import { interpolate, isShellCommand, literalText, referenceOpeningAt, referenceTextProblem, requiredReferences, unclosedReferenceAt } from "../adapters/shared/env-vars.js";
import { ENV_NAME_RULE, envNameProblem } from "../adapters/shared/env-name.js";
import { fieldName, specProblems, usePrecompiledSpec } from "../adapters/shared/spec-check.js";
import { jsonLocator, parseJsonText } from "../json-text.js";
import { closestNames } from "../runtime/similarity.js";
import { teamIdentityProblems, type TeamConfig } from "./team.js";
import { adoptForeignSettings, ignoredSettingsNotice } from "./foreign-entry-keys.js";
import { unexpandedTilde } from "./tilde.js";
import type { ConfigDocument, HttpSettings, ServerEntryDocument } from "./schema.js";
// The schemas as plain data (generated from schema.ts): a start does not load TypeBox.
import { CONFIG_SCHEMA as ConfigSchema, SERVER_ENTRY_SCHEMA as ServerEntrySchema } from "./schema-data.js";
import { isPlainObject } from "../plain-object.js";
import { maskedUrlText, urlAuthorityProblem } from "../url-text.js";
import { xdgBase } from "../paths.js";

// Validated by code made ahead of time from these very schemas (no Ajv compile at start).
usePrecompiledSpec(ConfigSchema, "config");
usePrecompiledSpec(ServerEntrySchema, "serverEntry");

/** The top-level settings read from a file: the schema's own properties, so the two lists cannot drift. */
const OWN_TOP_LEVEL_KEYS: readonly string[] = Object.keys(ConfigSchema.properties);

/**
 * `agent-tools.config.json` (comments and trailing commas allowed), or a file another client
 * already keeps, read as it is: Claude Desktop's `claude_desktop_config.json` (its
 * `globalShortcut`, `preferences`… are ignored with one notice), Claude Code's `.mcp.json`
 * (`type: "http"`, `${VAR}` and `${VAR:-default}`), Cursor's `.cursor/mcp.json` (`${env:VAR}`,
 * `envFile`) and VS Code's `.vscode/mcp.json` (`servers`, `inputs`, `${input:id}`,
 * `${workspaceFolder}`). Every problem of a file is reported at once, each with its line and column.
 *
 * Found by `--config`, else $AGENT_TOOLS_CONFIG, else `./agent-tools.config.json`, else the
 * user-level file (userConfigFile()).
 */

const CONFIG_FILE_NAME = "agent-tools.config.json";

type EntryCommon = Pick<ServerEntryDocument, "description" | "readonlyTools" | "confirmTools" | "trustReadOnlyHints" | "requireConfirm" | "confirm" | "discoverHint" | "disabled" | "timeoutMs" | "idleTimeoutMs" | "maxConcurrentCalls" | "lockFile" | "includeTools" | "excludeTools"> & {
  /** Left only when a variable its path needs is unset (the file is then unread): what makes the entry not configured. */
  envFile?: string;
  /** Not a setting of ours: the names of excludeTools that only Roo Code's `disabledTools` listed (foreign-entry-keys.ts), so a refusal names the field the user wrote. */
  disabledTools?: string[];
};

export interface StdioServerEntry extends EntryCommon {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpServerEntry extends EntryCommon {
  type?: "http" | "streamable-http" | "sse";
  url: string;
  headers?: Record<string, string>;
}

export type McpServerEntry = StdioServerEntry | HttpServerEntry;

/** How the file was found: what `status` and help report. */
export type ConfigSource = "--config" | "AGENT_TOOLS_CONFIG" | "working folder" | "user config";

export interface AgentToolsConfig {
  /** Absolute path of the file, or undefined when no file was found. */
  file: string | undefined;
  source?: ConfigSource;
  mcpServers: Record<string, McpServerEntry>;
  /** Where the file keeps its servers: `servers` in VS Code's files, else `mcpServers` (what problems name). */
  serversKey?: "mcpServers" | "servers";
  plugins: { dirs: string[]; disable: string[]; embedded?: boolean; confirm?: Record<string, "elicit" | "flag"> };
  facade: { mode: "per-plugin" | "compact" };
  /** The default confirm policy: "elicit" (ask the user when the client can) or "flag" (the model's confirm: true). */
  confirm?: "elicit" | "flag";
  http: HttpSettings;
  /** Things worth one line on stderr at start (ignored settings of other clients, mapped inputs). */
  notices: string[];
  /** Team gateway settings (README "Run it for a team"); absent for a single user. */
  team?: TeamConfig;
  /**
   * The `envFile`s the entries name (disabled ones too), as absolute paths: files of secrets kept
   * out of the config, which the filesystem plugin and the /workdir mount hide as they hide the config.
   */
  envFiles?: string[];
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(file: string, where: string | undefined, problem: string | string[]) {
    const problems = Array.isArray(problem) ? problem : [`${where ? `${where}: ` : ""}${problem}`];
    super(problems.map((p) => `${file}${p.startsWith(":") ? "" : ": "}${p}`).join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Misspellings too far from the right name for edit distance to find. */
const ENTRY_ALIASES: Readonly<Record<string, string>> = {
  environment: "env",
  enviroment: "env",
  environ: "env",
  envs: "env",
  arguments: "args",
  argv: "args",
  cmd: "command",
  header: "headers",
  endpoint: "url",
  uri: "url",
  serverUrl: "url",
  workingDirectory: "cwd",
  dir: "cwd",
  // Codex's tool filter (config.toml), and other spellings of Gemini CLI's
  enabled_tools: "includeTools",
  enabledTools: "includeTools",
  allowedTools: "includeTools",
  disabled_tools: "excludeTools",
};

const ENTRY_KEYS = Object.keys(ServerEntrySchema.properties);

function didYouMean(key: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string {
  const alias = aliases[key] ?? aliases[key.toLowerCase()];
  const close = alias ? [alias] : closestNames(key, known, 0.5, 2);
  return close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : "";
}

/** The setting names of the object that `segments` lead to in `schema`: what a misspelt key there may have meant. */
function settingsAt(schema: unknown, segments: readonly string[]): string[] {
  let node = schema as { properties?: Record<string, unknown>; items?: unknown } | undefined;
  for (const segment of segments) node = (/^\d+$/.test(segment) ? node?.items : node?.properties?.[segment]) as typeof node;
  return Object.keys(node?.properties ?? {});
}

/** `${input:id}` of VS Code is asked for in its UI; here it is a variable of the same name, upper-cased. */
function inputVariable(id: string): string {
  return id.toUpperCase().replace(/[^A-Z0-9_]+/g, "_").replace(/^(\d)/, "_$1");
}

interface Expansion {
  folder: string;
  inputs: Set<string>;
}

/** The forms `expand` rewrites, as referenceTextProblem takes them. */
const CLIENT_FORMS = { pattern: /^\$\{(?:env:[A-Za-z_][A-Za-z0-9_]*|input:[^}]+|workspaceFolder|userHome)\}/, forms: "Cursor's ${env:NAME}, VS Code's ${input:id}, ${workspaceFolder}, ${userHome}" };

/**
 * One of the forms `expand` rewrites, or the escaped `$`s of a `$${` (left as written: the adapters
 * read escapes when they resolve the value), so an escaped `$${workspaceFolder}` stays text.
 */
const CLIENT_FORM = /\$\$(?=\$*\{)|\$\{(?:env:([A-Za-z_][A-Za-z0-9_]*)|input:([^}]+)|(workspaceFolder)|(userHome))\}/g;

/** Other clients' variable forms, rewritten into the `${VAR}` the adapters resolve on the host at use time. */
function expand(value: string, how: Expansion): string {
  return value.replace(CLIENT_FORM, (written, env: string | undefined, input: string | undefined, folder: string | undefined, home: string | undefined) => {
    if (env !== undefined) return `\${${env}}`;
    if (input !== undefined) {
      how.inputs.add(input);
      return `\${${inputVariable(input)}}`;
    }
    if (folder !== undefined) return how.folder;
    if (home !== undefined) return os.homedir();
    return written;
  });
}

function expandDeep<T>(value: T, how: Expansion): T {
  if (typeof value === "string") return expand(value, how) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => expandDeep(v, how)) as T;
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, how)])) as T;
  return value;
}

/**
 * KEY=VALUE lines (dotenv without interpolation): Cursor's and VS Code's `envFile`. Blank lines and
 * `#` comments are skipped; any other line that is not KEY=VALUE, and a value that opens `${`
 * without closing it, is a problem naming the line (never its text: the line may hold a secret).
 */
function readEnvFile(file: string): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  readSettingsFileSync(file)
    .split(/\r?\n/)
    .forEach((line, index) => {
      if (/^\s*(#|$)/.test(line)) return;
      const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
      if (!match) {
        problems.push(`line ${index + 1} is not KEY=VALUE (a name of letters, digits and '_', then '='), a # comment or blank`);
        return;
      }
      let value = match[2] ?? "";
      if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
      const name = match[1] as string;
      if (unclosedReferenceAt(value) >= 0) problems.push(`line ${index + 1} (${name}) opens '\${' without a closing '}'; write \${NAME}, or $\${ for a literal '\${'`);
      values[name] = value;
    });
  return { values, problems };
}

/** The fields of a server entry whose `${VAR}`s are resolved at start, with their paths in the entry. */
function referenceFields(entry: Record<string, unknown>): { segments: (string | number)[]; value: string }[] {
  const out: { segments: (string | number)[]; value: string }[] = [];
  for (const field of ["command", "cwd", "url", "envFile"]) if (typeof entry[field] === "string") out.push({ segments: [field], value: entry[field] });
  if (Array.isArray(entry.args)) entry.args.forEach((value, i) => typeof value === "string" && out.push({ segments: ["args", i], value }));
  for (const field of ["env", "headers"]) {
    const map = entry[field];
    if (isPlainObject(map)) for (const [name, value] of Object.entries(map)) if (typeof value === "string") out.push({ segments: [field, name], value });
  }
  return out;
}

/**
 * What is wrong with an entry's `url`, or undefined. Checked here, not at the first call, where a
 * URL that does not parse failed as UPSTREAM_ERROR "Invalid URL" with a hint blaming the service.
 * A URL holding a variable (`${MCP_URL}`, `https://${HOST}/mcp`) is checked when it is resolved.
 * The URL is quoted masked: it may hold a password or a token.
 */
function urlProblem(written: string): string | undefined {
  if (referenceOpeningAt(written) >= 0) return undefined;
  // What is sent: an escaped `$${` is a `${` in the URL.
  const url = literalText(written);
  const shown = maskedUrlText(url);
  if (!/^https?:\/\//i.test(url)) return `must start with http:// or https:// (got '${shown}')`;
  try {
    new URL(url);
    return undefined;
  } catch {
    return `is not a valid URL: ${urlAuthorityProblem(shown)} (got '${shown}'); write it as http(s)://host[:port]/path (a host holds no spaces; in the path, write a space or another character a URL cannot hold percent-encoded, %20)`;
  }
}

/** The variables of `value` that are unset in `env` and have no default: what it needs to be resolved. */
function unsetRequired(value: string, env: NodeJS.ProcessEnv): string[] {
  return requiredReferences(value).filter((name) => !env[name]);
}

/**
 * Validate a parsed config document and fill in defaults. Throws one ConfigError listing every problem.
 * `env` is the host environment an `envFile` path's `${VAR}`s are resolved in (the file is read
 * now): one it needs unset leaves the file unread and the entry needing it, like any `${VAR}`.
 */
export function parseConfig(file: string, doc: unknown, text?: string, env: NodeJS.ProcessEnv = process.env): AgentToolsConfig {
  if (!isPlainObject(doc)) throw new ConfigError(file, undefined, "must be a JSON object");
  const at = jsonLocator(text);
  const problems: string[] = [];
  const notices: string[] = [];
  const problem = (segments: (string | number)[], message: string, key = false) => problems.push(`${at(segments, key)}: ${message}`.replace(/^: /, ""));

  // VS Code keeps its servers under `servers`; the rest of the vocabulary is the same.
  const serversKey = doc.mcpServers === undefined && isPlainObject(doc.servers) ? "servers" : "mcpServers";
  if (doc.mcpServers !== undefined && doc.servers !== undefined) problem(["servers"], "both 'mcpServers' and 'servers' are set; keep one", true);

  const own: Record<string, unknown> = {};
  const foreign: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (OWN_TOP_LEVEL_KEYS.includes(key)) own[key] = value;
    else if (key === "servers" || key === "inputs") continue;
    else {
      const close = closestNames(key, OWN_TOP_LEVEL_KEYS, 0.75, 1);
      if (close.length) problem([key], `field '${key}' is not a known setting; did you mean '${close[0]}'?`, true);
      else foreign.push(key);
    }
  }
  if (serversKey === "servers") own.mcpServers = doc.servers;
  if (foreign.length) notices.push(`${file}: ignored ${foreign.length === 1 ? "a setting" : `${foreign.length} settings`} agent-tools does not use (${foreign.join(", ")}); only ${serversKey}, plugins, facade, http, confirm and team are read`);

  // The same schema check as plugin.json and the adapter blocks (spec-check.ts); a misspelt key
  // is matched against the settings of its own block.
  for (const p of specProblems(ConfigSchema, own)) {
    const segments = [...p.segments];
    if (segments[0] === "mcpServers" && serversKey === "servers") segments[0] = "servers";
    const message = p.key ? `is not a known setting${didYouMean(String(segments.at(-1) ?? ""), settingsAt(ConfigSchema, segments.slice(0, -1).map(String)))}` : p.message;
    problem(segments, `field '${p.field}' ${message}`, p.key);
  }

  for (const p of teamIdentityProblems(own.team)) problem(p.segments, p.message);

  const raw = own as ConfigDocument;
  const folder = path.basename(path.dirname(file)) === ".vscode" || path.basename(path.dirname(file)) === ".cursor" ? path.dirname(path.dirname(file)) : path.dirname(file);
  const how: Expansion = { folder, inputs: new Set() };
  const servers: Record<string, McpServerEntry> = {};
  const envFiles: string[] = [];
  /** Per ignored setting of other clients, the entries that have it. */
  const ignoredEntryKeys = new Map<string, string[]>();
  for (const [key, value] of Object.entries(isPlainObject(raw.mcpServers) ? raw.mcpServers : {})) {
    const where = `${serversKey}.${key}`;
    const base = [serversKey, key];
    if (key.trim() === "") {
      problem(base, `${serversKey}: a server's key is its name and its tools' prefix, and this one is empty; give it a name such as "github"`, true);
      continue;
    }
    if (!isPlainObject(value)) {
      problem(base, `${where}: must be an object with 'command' (a stdio server) or 'url' (an HTTP server)`);
      continue;
    }
    const before = problems.length;
    const { entry, ignored, problems: adopted, typeField, urlField, disabledTools } = adoptForeignSettings(value);
    for (const field of ignored) ignoredEntryKeys.set(field, [...(ignoredEntryKeys.get(field) ?? []), key]);
    for (const p of adopted) problem([...base, p.field], `${where}: field '${p.field}' ${p.message}`);
    for (const p of specProblems(ServerEntrySchema, entry)) {
      const segments = [...base, ...p.segments];
      if (p.key) problem(segments, `${where}: '${p.field}' is not a setting of a server entry${didYouMean(p.field, ENTRY_KEYS, ENTRY_ALIASES)}`, true);
      else problem(segments, `${where}: field '${p.field}' ${p.message}`);
    }
    if (problems.length > before) continue;
    const hasCommand = typeof entry.command === "string";
    const hasUrl = typeof entry.url === "string";
    if (hasCommand === hasUrl) {
      problem(base, `${where}: ${hasCommand ? "has both 'command' and 'url'; keep one" : "needs 'command' (a stdio server) or 'url' (an HTTP server)"}`, true);
      continue;
    }
    const typeWritten = typeField === "transport" ? value.transport : entry.type;
    if (hasCommand && entry.type !== undefined && entry.type !== "stdio") problem([...base, typeField], `${where}: field '${typeField}' is '${String(typeWritten)}' but the entry has a 'command'; use "stdio" or drop '${typeField}'`);
    if (hasUrl && entry.type === "stdio") problem([...base, typeField], `${where}: field '${typeField}' is 'stdio' but the entry has a 'url'; use "http" or "sse"`);
    if (Array.isArray(entry.includeTools) && entry.includeTools.length === 0) problem([...base, "includeTools"], `${where}: field 'includeTools' is empty, which would serve none of the server's tools; list the tools to serve, or remove it (use 'disabled': true to turn the server off)`);
    // Text that only looks like a reference would reach the server as written.
    const shell = isShellCommand(entry.command);
    for (const { segments, value: text } of referenceFields(entry)) {
      const wrong = referenceTextProblem(text, CLIENT_FORMS, { shellScript: shell && segments[0] === "args" });
      if (wrong) problem([...base, ...segments], `${where}: field '${fieldName("", segments)}' ${wrong}`);
    }
    // A name a child process cannot be given (empty, with '=', a space, a NUL) was passed on as written.
    if (isPlainObject(entry.env)) {
      for (const name of Object.keys(entry.env)) {
        const wrong = envNameProblem(name);
        if (wrong) problem([...base, "env", name], `${where}: field 'env' has a variable named ${JSON.stringify(name)}, which ${wrong}; ${ENV_NAME_RULE}: rename it or remove it`, true);
      }
    }
    const expanded = expandDeep(entry, how) as ServerEntryDocument;
    if (hasUrl) {
      const wrong = urlProblem(String(expanded.url));
      if (wrong) problem([...base, urlField], `${where}: field '${urlField}' ${wrong}`);
    }
    // Unset variables the envFile's path needs: the file is not read, and the entry keeps the
    // path, so it is "not configured: set NAME" (mcp-servers.ts) as for any other field.
    if (expanded.envFile !== undefined && !unsetRequired(expanded.envFile, env).length) {
      const envFile = path.resolve(folder, interpolate(expanded.envFile, env, `${where}.envFile`));
      envFiles.push(envFile);
      try {
        const read = readEnvFile(envFile);
        for (const line of read.problems) problem([...base, "envFile"], `${where}: field 'envFile' names ${envFile}, whose ${line}`);
        expanded.env = { ...read.values, ...(expanded.env ?? {}) };
      } catch (error) {
        const refused = error instanceof FileShapeError ? `, which ${error.problem}` : `, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
        problem([...base, "envFile"], `${where}: field 'envFile' names ${envFile}${refused}`);
      }
      delete expanded.envFile;
    }
    const served = expanded as McpServerEntry;
    if (disabledTools) served.disabledTools = disabledTools;
    servers[key] = served;
  }
  if (problems.length) throw new ConfigError(file, undefined, problems);
  const ignoredLine = ignoredSettingsNotice(file, serversKey, ignoredEntryKeys);
  if (ignoredLine) notices.push(ignoredLine);
  if (how.inputs.size) {
    notices.push(`${file}: VS Code inputs are read from the environment here: ${[...how.inputs].map((id) => `\${input:${id}} from $${inputVariable(id)}`).join(", ")}`);
  }
  const plugins = raw.plugins ?? {};
  const base = path.dirname(file);
  return {
    file,
    mcpServers: servers,
    ...(serversKey === "servers" ? { serversKey } : {}),
    plugins: { dirs: (plugins.dirs ?? []).map((d) => path.resolve(base, d)), disable: plugins.disable ?? [], ...(plugins.embedded !== undefined ? { embedded: plugins.embedded } : {}), ...(plugins.confirm ? { confirm: plugins.confirm } : {}) },
    ...(raw.confirm ? { confirm: raw.confirm } : {}),
    facade: { mode: raw.facade?.mode ?? "per-plugin" },
    http: raw.http ?? {},
    notices,
    ...(raw.team ? { team: raw.team } : {}),
    ...(envFiles.length ? { envFiles } : {}),
  };
}

function emptyConfig(): AgentToolsConfig {
  return { file: undefined, mcpServers: {}, plugins: { dirs: [], disable: [] }, facade: { mode: "per-plugin" }, http: {}, notices: [] };
}

/**
 * The files of `config` that hold credentials and are no project file to read: the config file
 * itself and the env files its entries name. The filesystem plugin and the /workdir mount hide them.
 */
export function secretFilesOf(config: AgentToolsConfig | undefined): string[] {
  return [config?.file, ...(config?.envFiles ?? [])].filter((file): file is string => file !== undefined);
}

export function readConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): AgentToolsConfig {
  let text: string;
  try {
    text = readSettingsFileSync(file);
  } catch (error) {
    throw new ConfigError(file, undefined, readProblem(error));
  }
  const { doc, problems } = parseJsonText(text, 'a config file holds one JSON object: {} for no settings, or { "mcpServers": { … } }');
  if (problems.length) throw new ConfigError(file, undefined, problems);
  return parseConfig(file, doc, text, env);
}

/**
 * The user-level config file: $XDG_CONFIG_HOME (else ~/.config) on Linux and other Unixes,
 * ~/Library/Application Support on macOS, %APPDATA% on Windows; `agent-tools-runtime/config.json` in it.
 */
function userConfigFile(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = env.HOME || os.homedir();
  let base: string;
  if (platform === "win32") base = env.APPDATA || path.join(home, "AppData", "Roaming");
  else if (platform === "darwin") base = xdgBase(env.XDG_CONFIG_HOME) ?? path.join(home, "Library", "Application Support");
  else base = xdgBase(env.XDG_CONFIG_HOME) ?? path.join(home, ".config");
  return path.join(base, "agent-tools-runtime", "config.json");
}

/**
 * Whether `file` is the user-level config file, found by default or named: its entries start in
 * the runtime's working folder (mcp-servers.ts), as it is shared by every project.
 */
export function isUserConfigFile(file: string | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return file !== undefined && path.resolve(file) === path.resolve(userConfigFile(env));
}

/** Where the config comes from: an explicit path must exist; the default files are optional. */
export function locateConfig(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): { file: string; source: ConfigSource } | undefined {
  const named = explicit ?? env.AGENT_TOOLS_CONFIG;
  if (named) {
    const file = path.resolve(cwd, named);
    const source = explicit ? "--config" : "AGENT_TOOLS_CONFIG";
    if (!existsSync(file)) {
      const tilde = unexpandedTilde(explicit ? "--config" : "AGENT_TOOLS_CONFIG", named);
      throw new ConfigError(file, undefined, `does not exist (named by ${source})${tilde ? `: '${named}' ${tilde.why}; ${tilde.fix}` : ""}`);
    }
    return { file, source };
  }
  const local = path.join(cwd, CONFIG_FILE_NAME);
  if (existsSync(local)) return { file: local, source: "working folder" };
  const user = userConfigFile(env);
  return existsSync(user) ? { file: user, source: "user config" } : undefined;
}

export function loadConfig(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): AgentToolsConfig {
  const found = locateConfig(explicit, env, cwd);
  return found ? { ...readConfigFile(found.file, env), source: found.source } : emptyConfig();
}

/** One line for status and help: which file was read, and how it was found. */
export function describeConfigSource(config: AgentToolsConfig | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (!config?.file) return `none (looked for --config, $AGENT_TOOLS_CONFIG, ./${CONFIG_FILE_NAME}, ${userConfigFile(env)})`;
  return `${config.file} (${config.source ?? "given"})`;
}
