import { readSettingsFileSync } from "../bounded-file.js";
import { RuntimeError } from "../errors.js";
import { parseJsonText } from "../json-text.js";
import { isPlainObject } from "../plain-object.js";
import { prefixFromKey } from "./entry-names.js";

/**
 * The config file is read once, at start: a server added to it later is unknown until a restart.
 * An answer that a plugin or a facade tool is unknown reads the file again (an error's path, never
 * a call's) and, when the name is an entry there now, says to restart instead of leaving the model
 * and the user to think the name is wrong. Reading fails quietly: it only adds a sentence.
 */

/** The prefixes of the file's enabled entries now, or none when it cannot be read. */
function prefixesNow(file: string): string[] {
  try {
    const { doc } = parseJsonText(readSettingsFileSync(file));
    if (!isPlainObject(doc)) return [];
    const servers = isPlainObject(doc.mcpServers) ? doc.mcpServers : isPlainObject(doc.servers) ? doc.servers : {};
    return Object.entries(servers)
      .filter(([, entry]) => !(isPlainObject(entry) && entry.disabled === true))
      .map(([key]) => prefixFromKey(key));
  } catch {
    return [];
  }
}

/**
 * The entry of `file` that `sent` names (a prefix, or a facade tool `agent_tools_<prefix>_…`) and
 * that was not loaded at start (`loaded`), or undefined.
 */
export function addedSinceStart(file: string | undefined, loaded: readonly string[], sent: string): string | undefined {
  if (!file) return undefined;
  const name = sent.toLowerCase();
  return prefixesNow(file).find((prefix) => !loaded.includes(prefix) && (name === prefix || name.startsWith(`agent_tools_${prefix}_`)));
}

/** `error` (UNKNOWN_PLUGIN / UNKNOWN_FACADE_TOOL) with the restart said, when the name is in the file now. */
export function withRestartNote(error: RuntimeError, file: string | undefined, loaded: readonly string[], sent: string): RuntimeError {
  const added = addedSinceStart(file, loaded, sent);
  if (!added) return error;
  const restart = `the config changed since the server started; restart it (or the client) to load '${added}'`;
  return new RuntimeError(error.code, `${error.message}; ${restart}`, { ...error.details, configChanged: file }, `Nothing was run. '${added}' is in the config file now but was not when the server started: tell the user to restart it (or the client), then call again.`);
}
