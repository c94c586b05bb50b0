/**
 * Per-entry settings of other clients, read from their files as they are. Those that mean the
 * same here are taken as ours: `transport` (FastMCP's and langchain's word for `type`), Gemini
 * CLI's `httpUrl` (a Streamable HTTP server's `url`) and Roo Code's `disabledTools` (read as
 * `excludeTools`). The rest mean nothing here and are ignored, each
 * with its reason in one notice (validate lists it; the server says it at start): ignoring one
 * silently once let an SSE-only server be spoken to as Streamable HTTP and served tools the user
 * had excluded.
 */

/** What each ignored setting was for, and what to do here instead. */
export const IGNORED_ENTRY_KEYS: Readonly<Record<string, string>> = {
  alwaysAllow: "tools the client runs without asking, while agent-tools gates writes with confirm: list read-only tools in readonlyTools, or set requireConfirm: false",
  autoApprove: "tools the client runs without asking, while agent-tools gates writes with confirm: list read-only tools in readonlyTools, or set requireConfirm: false",
  trust: "Gemini CLI's switch that skips its confirmations, while agent-tools gates writes with confirm: set requireConfirm: false to skip them",
  timeout: "a timeout in milliseconds for some clients and seconds for others: set timeoutMs",
  oauth: "the client's OAuth login, which agent-tools does not run: send a token in headers, \"Authorization\": \"Bearer ${TOKEN}\"",
  gallery: "VS Code's gallery metadata, nothing to run",
  version: "VS Code's gallery metadata, nothing to run",
  dev: "VS Code's watch-and-debug settings for developing a server",
};

/** `transport` values and the `type` each means (Streamable HTTP goes by several spellings). */
const TRANSPORTS: Readonly<Record<string, "stdio" | "http" | "sse">> = {
  stdio: "stdio",
  http: "http",
  "streamable-http": "http",
  streamable_http: "http",
  streamableHttp: "http",
  sse: "sse",
};

/** The type a `type` value means, for comparing it with `transport`. */
const meaning = (type: unknown): unknown => (type === "streamable-http" ? "http" : type);

export interface AdoptedEntry {
  /** The entry in our vocabulary, without the ignored settings. */
  entry: Record<string, unknown>;
  /** The ignored settings it had (keys of IGNORED_ENTRY_KEYS). */
  ignored: string[];
  /** What is wrong with the settings taken as ours, each at its field. */
  problems: { field: string; message: string }[];
  /** The field the entry's transport was read from, for problems about it. */
  typeField: "type" | "transport";
  /** The field the entry's url was read from (Gemini CLI's `httpUrl`), for problems about it. */
  urlField: "url" | "httpUrl";
  /** The names only Roo Code's `disabledTools` lists (read as excludeTools): a refusal names the field the user wrote. */
  disabledTools?: string[];
}

/** An entry as written, with other clients' settings taken as ours or set aside. */
export function adoptForeignSettings(written: Readonly<Record<string, unknown>>): AdoptedEntry {
  const entry: Record<string, unknown> = {};
  const ignored: string[] = [];
  const problems: AdoptedEntry["problems"] = [];
  let disabledTools: string[] | undefined;
  for (const [field, value] of Object.entries(written)) {
    if (field in IGNORED_ENTRY_KEYS) ignored.push(field);
    else if (field !== "transport" && field !== "disabledTools" && field !== "httpUrl") entry[field] = value;
  }
  const urlField = adoptHttpUrl(written, entry, problems);
  let typeField: AdoptedEntry["typeField"] = "type";
  if (written.transport !== undefined) {
    const type = typeof written.transport === "string" ? TRANSPORTS[written.transport] : undefined;
    const known = Object.keys(TRANSPORTS).map((t) => `"${t}"`).join(", ");
    if (!type) problems.push({ field: "transport", message: `must be one of ${known} (got ${JSON.stringify(written.transport)}); it says how to reach the server, as 'type' does` });
    else if (written.type !== undefined && meaning(written.type) !== type) problems.push({ field: "transport", message: `is ${JSON.stringify(written.transport)} but 'type' is ${JSON.stringify(written.type)}; keep one of the two` });
    else if (written.type === undefined) {
      entry.type = type;
      typeField = "transport";
    }
  }
  if (written.disabledTools !== undefined) {
    const names = written.disabledTools;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) problems.push({ field: "disabledTools", message: "must be an array of tool names (it is read as excludeTools)" });
    else {
      const written = Array.isArray(entry.excludeTools) ? (entry.excludeTools as unknown[]) : undefined;
      if (written) entry.excludeTools = [...new Set([...written, ...names])];
      else if (entry.excludeTools === undefined) entry.excludeTools = names;
      const own = names.filter((n) => !written?.includes(n));
      if (own.length && Array.isArray(entry.excludeTools)) disabledTools = own;
    }
  }
  return { entry, ignored, problems, typeField, urlField, ...(disabledTools ? { disabledTools } : {}) };
}

/**
 * Gemini CLI names a Streamable HTTP server's address `httpUrl` (its `url` is an SSE server's):
 * taken as `url` with type "http". Written with `url` as well, or with a type or transport that
 * says another way to reach the server, it is a problem: which one is meant cannot be told.
 */
function adoptHttpUrl(written: Readonly<Record<string, unknown>>, entry: Record<string, unknown>, problems: AdoptedEntry["problems"]): AdoptedEntry["urlField"] {
  const httpUrl = written.httpUrl;
  if (httpUrl === undefined) return "url";
  const said = written.type ?? written.transport;
  const saidField = written.type !== undefined ? "type" : "transport";
  if (typeof httpUrl !== "string" || httpUrl === "") problems.push({ field: "httpUrl", message: "must be a non-empty URL string (Gemini CLI's address of a Streamable HTTP server, read as 'url')" });
  else if (written.command !== undefined) problems.push({ field: "httpUrl", message: "and 'command' are both set; keep one ('command' for a stdio server, 'httpUrl' for a Streamable HTTP server)" });
  else if (written.url !== undefined) problems.push({ field: "httpUrl", message: "and 'url' are both set; keep one ('httpUrl' for a Streamable HTTP server, 'url' for either kind)" });
  else if (said !== undefined && (typeof said !== "string" || TRANSPORTS[said] !== "http")) problems.push({ field: "httpUrl", message: `names a Streamable HTTP server but '${saidField}' is ${JSON.stringify(said)}; drop '${saidField}', or write the address as 'url'` });
  else {
    entry.url = httpUrl;
    if (written.type === undefined) entry.type = "http";
    return "httpUrl";
  }
  return "url";
}

/** The one notice naming every ignored setting of a file, with the entries that have it and why. */
export function ignoredSettingsNotice(file: string, serversKey: string, ignored: ReadonlyMap<string, string[]>): string | undefined {
  if (!ignored.size) return undefined;
  const parts = [...ignored].map(([key, entries]) => `'${key}' in ${entries.map((e) => `${serversKey}.${e}`).join(", ")} (${IGNORED_ENTRY_KEYS[key]})`);
  return `${file}: ignored server settings of other clients, which mean nothing here: ${parts.join("; ")}`;
}
