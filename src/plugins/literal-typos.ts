import { blockStrings } from "./block-strings.js";
import { fieldName } from "../adapters/shared/spec-check.js";
import type { DeclarativeAdapterSpec } from "./manifest.js";
import type { FirstUseProblem } from "./first-use-check.js";

/**
 * Settings that are valid as written yet almost surely meant something else, because the runtime
 * sends them literally (`agent-tools validate` says them as notices, with the fix):
 *  - `$NAME` without braces: only `${NAME}` is resolved, so `"token": "$NOTES_TOKEN"` sends the
 *    eleven characters `$NOTES_TOKEN`. Said for a name written as a variable is (upper case) or
 *    one the host sets, so a password such as `pa$word` is left alone; never in a shell's script,
 *    where the shell reads `$NAME` itself;
 *  - a REST tool's path segment `:id` (Express's form): only `{id}` is a placeholder, so
 *    `/notes/:id` is requested as written.
 * Notices, not problems: either can be meant (a literal `$` in a value, an API whose path has `:`).
 */
export function literalTypoNotices(block: DeclarativeAdapterSpec, env: NodeJS.ProcessEnv): FirstUseProblem[] {
  return [...bareVariableNotices(block, env), ...expressPathNotices(block)];
}

/** `$NAME` not written `$${…}`/`${…}`: a `$` that no `$` or word character precedes, then a name, then no `{`. */
const BARE_VARIABLE = /(?<![$\w])\$([A-Za-z_][A-Za-z0-9_]*)/g;

function bareVariableNotices(block: DeclarativeAdapterSpec, env: NodeJS.ProcessEnv): FirstUseProblem[] {
  return blockStrings(block).flatMap(({ segments, value, shellScript }) => {
    if (shellScript) return [];
    const names = [...new Set([...value.matchAll(BARE_VARIABLE)].map((m) => m[1] as string))].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name) || env[name] !== undefined);
    if (!names.length) return [];
    const meant = names.map((name) => `\${${name}}`).join(", ");
    return [{ field: fieldName("", segments), message: `has ${names.map((name) => `$${name}`).join(", ")} without braces, which is used as written (only \${NAME} is read from the environment): did you mean ${meant}?` }];
  });
}

function expressPathNotices(block: DeclarativeAdapterSpec): FirstUseProblem[] {
  if (block.kind !== "rest" || !Array.isArray(block.tools)) return [];
  return (block.tools as unknown[]).flatMap((tool, i) => {
    const written = (tool as { path?: unknown } | null)?.path;
    if (typeof written !== "string") return [];
    const names = written
      .split("/")
      .map((segment) => /^:([A-Za-z_][A-Za-z0-9_]*)$/.exec(segment)?.[1])
      .filter((name): name is string => name !== undefined);
    if (!names.length) return [];
    const fixed = names.reduce((text, name) => text.replace(new RegExp(`/:${name}(?=/|$)`), `/{${name}}`), written);
    return [{ field: `tools[${i}].path`, message: `has ${names.map((name) => `':${name}'`).join(", ")}, which is requested as written (a placeholder is {name}, not Express's :name): did you mean '${fixed}'?` }];
  });
}
