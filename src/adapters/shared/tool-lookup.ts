/**
 * A declarative adapter's tools by name, for its `call`. A name it does not have fails with
 * UNKNOWN_TOOL listing the names it has, so the model's next call can pick one; `unknown` builds
 * the kind's own error (CliError, RestError), which callers and tests tell apart.
 */
export function toolLookup<T extends { readonly name: string }>(tools: readonly T[], unknown: (message: string) => Error): (name: string) => T {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name) => {
    const tool = byName.get(name);
    if (!tool) throw unknown(`unknown tool '${name}' (known: ${[...byName.keys()].join(", ")})`);
    return tool;
  };
}
