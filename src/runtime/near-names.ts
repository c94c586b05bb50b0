/**
 * How an unknown-name error (UNKNOWN_TOOL, UNKNOWN_SKILL, UNKNOWN_FACADE_TOOL) offers the near names, each said once:
 * the message names the nearest one (what a model most often meant), `details.suggestions` lists
 * them all for a client to pick from, and an error with no near names has no empty list. The
 * message used to name all five and `details.suggestions` to list the same five again.
 */

/**
 * The words after "has no tool 'x'": the nearest name, and where the others are. `field`: the
 * details field that lists them all (UNKNOWN_FACADE_TOOL's is `tools`).
 */
export function didYouMean(suggestions: readonly string[], field = "suggestions"): string {
  const [nearest] = suggestions;
  if (nearest === undefined) return "";
  const others = suggestions.length - 1;
  return `; did you mean '${nearest}'?${others ? ` (${others} more near name${others === 1 ? "" : "s"} in \`details.${field}\`)` : ""}`;
}

/** `details.suggestions` when there are near names; nothing when there are none. */
export function suggestionsField(suggestions: readonly string[]): { suggestions?: readonly string[] } {
  return suggestions.length ? { suggestions } : {};
}
