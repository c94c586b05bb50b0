/**
 * Repairs of common malformed calls. Each returns what it changed as a human-readable note that
 * the result reports; none skips validation or the confirm gate, which run after repair.
 */

export interface Repair {
  kind: "unwrapped-nested-arguments" | "parsed-json-arguments" | "routed-facade-tool" | "matched-plugin-case" | "stripped-tool-prefix" | "matched-tool-case" | "shortened-query" | "moved-confirm";
  message: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * `arguments` sent as a JSON string is parsed. Returns the repaired value (or the input when it
 * was not a JSON object string).
 */
export function parseJsonArguments(value: unknown, field: string, repairs: Repair[]): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith("{")) return value;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (!isPlainObject(parsed)) return value;
    repairs.push({ kind: "parsed-json-arguments", message: `'${field}' was a JSON string; it was parsed into an object` });
    return parsed;
  } catch {
    return value;
  }
}

/**
 * Arguments nested one level too deep: `{arguments: {toolName, arguments}}` for _call, or
 * `{arguments: {skill, arguments}}` for _run_skill. The inner object is lifted to the top.
 */
export function unwrapNested(args: Record<string, unknown>, keyField: "toolName" | "skill", repairs: Repair[]): Record<string, unknown> {
  if (args[keyField] !== undefined) return args;
  const inner = parseJsonArguments(args.arguments, "arguments", []);
  if (!isPlainObject(inner) || typeof inner[keyField] !== "string") return args;
  const others = Object.keys(args).filter((k) => k !== "arguments" && k !== "confirm");
  if (others.length > 0) return args;
  repairs.push({
    kind: "unwrapped-nested-arguments",
    message: `'${keyField}' and 'arguments' were nested inside 'arguments'; they were lifted one level up`,
  });
  const lifted: Record<string, unknown> = { ...inner };
  if (args.confirm !== undefined && lifted.confirm === undefined) lifted.confirm = args.confirm;
  return lifted;
}

/** Normalise the arguments of a _call or _run_skill request: unwrap, then parse a JSON string. */
export function repairRequest(raw: unknown, keyField: "toolName" | "skill", repairs: Repair[]): Record<string, unknown> {
  const parsed = parseJsonArguments(raw, "request", repairs);
  const base = isPlainObject(parsed) ? parsed : {};
  const unwrapped = unwrapNested(base, keyField, repairs);
  const args = parseJsonArguments(unwrapped.arguments, "arguments", repairs);
  return args === unwrapped.arguments ? unwrapped : { ...unwrapped, arguments: args };
}

/**
 * A tool name sent with its plugin's prefix ("github_list_issues", "github.list_issues",
 * "github:list_issues", "agent_tools_github_list_issues") is reduced to the bare name when that
 * name exists.
 */
export function stripToolPrefix(name: string, prefix: string, exists: (candidate: string) => boolean, repairs: Repair[]): string | undefined {
  const forms = [`agent_tools_${prefix}_`, `${prefix}_`, `${prefix}.`, `${prefix}:`, `${prefix}/`, `${prefix}__`];
  for (const form of forms) {
    if (name.toLowerCase().startsWith(form.toLowerCase())) {
      const bare = name.slice(form.length);
      if (exists(bare)) {
        repairs.push({ kind: "stripped-tool-prefix", message: `tool name '${name}' carried the plugin prefix; called '${bare}'` });
        return bare;
      }
    }
  }
  return undefined;
}
