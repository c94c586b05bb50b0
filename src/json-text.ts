import * as jsonc from "jsonc-parser";

/**
 * JSON files people write by hand (the config file, plugin.json) read one way: comments and
 * trailing commas allowed, and every problem placed at its line and column (`:line:column`, the
 * form editors and terminals turn into links).
 */

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Parse; syntax errors come back as ":line:column: is not valid JSON (…)" problems, all of them.
 * The parser reports the same error at the same place once per level it closes (two unclosed
 * objects: CloseBraceExpected twice at the end): one problem says so, with the count.
 */
export function parseJsonText(text: string): { doc: unknown; problems: string[] } {
  const errors: jsonc.ParseError[] = [];
  const doc: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const counts = new Map<string, { offset: number; code: string; count: number }>();
  for (const e of errors) {
    const code = jsonc.printParseErrorCode(e.error);
    const seen = counts.get(`${e.offset} ${code}`);
    if (seen) seen.count += 1;
    else counts.set(`${e.offset} ${code}`, { offset: e.offset, code, count: 1 });
  }
  const problems = [...counts.values()].map(({ offset, code, count }) => {
    const { line, column } = lineAndColumn(text, offset);
    return `:${line}:${column}: is not valid JSON (${code}${count > 1 ? ` ×${count}` : ""} at line ${line}, column ${column})`;
  });
  return { doc, problems };
}

/**
 * Where a value is in the text (`key: true`: where its property starts), as ":line:column", or ""
 * without the text. A path that does not exist is placed at its nearest existing parent.
 */
export function jsonLocator(text: string | undefined): (segments: (string | number)[], key?: boolean) => string {
  if (text === undefined) return () => "";
  const root = jsonc.parseTree(text, [], { allowTrailingComma: true });
  return (segments, key = false) => {
    if (!root) return "";
    let node = jsonc.findNodeAtLocation(root, segments);
    for (let cut = segments.length - 1; !node && cut >= 0; cut--) node = jsonc.findNodeAtLocation(root, segments.slice(0, cut));
    if (!node) return "";
    const offset = key && node.parent?.type === "property" ? node.parent.offset : node.offset;
    const { line, column } = lineAndColumn(text, offset);
    return `:${line}:${column}`;
  };
}
