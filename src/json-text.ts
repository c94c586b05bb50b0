import * as jsonc from "jsonc-parser";

/**
 * JSON files people write by hand (the config file, plugin.json) read one way: comments and
 * trailing commas allowed, a leading byte-order mark (Windows Notepad writes one) skipped, and every
 * problem placed at its line and column (`:line:column`, the form editors and terminals turn into
 * links). What plain JSON parsers let pass silently is a problem here: a key given twice in one
 * object (only the last would count, so a whole server block could vanish).
 */

/** Deeper than any hand-written file needs; the parser recurses once per level and would overflow the stack long before a file ends. */
export const MAX_JSON_DEPTH = 256;

const PARSE_OPTIONS: jsonc.ParseOptions = { allowTrailingComma: true, allowEmptyContent: false };

/** The text without its byte-order mark: positions are then the ones an editor shows. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Where the text first opens an object or array deeper than MAX_JSON_DEPTH, or undefined. Read
 * with the scanner (a loop, not recursion), and only when the text has that many brackets at all.
 */
function tooDeepAt(text: string): number | undefined {
  let opening = 0;
  for (let i = 0; i < text.length && opening <= MAX_JSON_DEPTH; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) opening++;
  }
  if (opening <= MAX_JSON_DEPTH) return undefined;
  const scanner = jsonc.createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== jsonc.SyntaxKind.EOF; token = scanner.scan()) {
    if (token === jsonc.SyntaxKind.OpenBraceToken || token === jsonc.SyntaxKind.OpenBracketToken) {
      if (++depth > MAX_JSON_DEPTH) return scanner.getTokenOffset();
    } else if (token === jsonc.SyntaxKind.CloseBraceToken || token === jsonc.SyntaxKind.CloseBracketToken) depth--;
  }
  return undefined;
}

/**
 * The document, built as jsonc-parser's `parse` builds it, and each key given twice in one object
 * (where, and where it first was). Keys are own properties even when named `__proto__`.
 */
function build(text: string, errors: jsonc.ParseError[]): { doc: unknown; duplicates: { path: jsonc.JSONPath; offset: number; first: number }[] } {
  const duplicates: { path: jsonc.JSONPath; offset: number; first: number }[] = [];
  const root: unknown[] = [];
  let parent: Record<string, unknown> | unknown[] = root as Record<string, unknown> | unknown[];
  let keys: Map<string, number> | undefined;
  let property: string | undefined;
  const outer: { parent: typeof parent; keys: typeof keys }[] = [];
  const add = (value: unknown) => {
    if (Array.isArray(parent)) parent.push(value);
    else if (property !== undefined) Object.defineProperty(parent, property, { value, writable: true, enumerable: true, configurable: true });
  };
  const open = (value: Record<string, unknown> | unknown[]) => {
    add(value);
    outer.push({ parent, keys });
    parent = value;
    keys = Array.isArray(value) ? undefined : new Map();
    property = undefined;
  };
  const close = () => {
    ({ parent, keys } = outer.pop() ?? { parent: root, keys: undefined });
  };
  jsonc.visit(
    text,
    {
      onObjectBegin: () => open({}),
      onArrayBegin: () => open([]),
      onObjectEnd: close,
      onArrayEnd: close,
      onObjectProperty: (name, offset, _length, _line, _column, pathOf) => {
        property = name;
        const first = keys?.get(name);
        if (first !== undefined) duplicates.push({ path: [...pathOf(), name], offset, first });
        else keys?.set(name, offset);
      },
      onLiteralValue: add,
      onError: (error, offset, length) => errors.push({ error, offset, length }),
    },
    PARSE_OPTIONS,
  );
  return { doc: root[0], duplicates };
}

/** `mcpServers.a`, `tools[2].name`: a key path as the problems of the files' checks name fields. */
function pathText(segments: jsonc.JSONPath): string {
  return segments.reduce<string>((out, s) => (typeof s === "number" ? `${out}[${s}]` : out ? `${out}.${s}` : s), "");
}

/** Syntax errors said per file: past the first few, the rest are mostly the parser losing its way after them. */
export const MAX_SYNTAX_PLACES = 3;

/** True when the text holds no JSON token at all: nothing, blanks, or comments only. */
function holdsNoValue(text: string): boolean {
  return jsonc.createScanner(text, true).scan() === jsonc.SyntaxKind.EOF;
}

/**
 * The parser's errors, one problem per place: it often reports two codes at one offset
 * (PropertyNameExpected and ValueExpected for a stray `,,`), and the same code once per level it
 * closes (two unclosed objects: CloseBraceExpected twice at the end), so a place lists its codes
 * once each, a repeated one with its count. Past MAX_SYNTAX_PLACES places one more line says how
 * many were left unsaid.
 */
function syntaxProblems(text: string, errors: jsonc.ParseError[]): string[] {
  const places = new Map<number, Map<string, number>>();
  for (const e of errors) {
    const codes = places.get(e.offset) ?? new Map<string, number>();
    const code = jsonc.printParseErrorCode(e.error);
    codes.set(code, (codes.get(code) ?? 0) + 1);
    places.set(e.offset, codes);
  }
  const ordered = [...places.entries()].sort(([a], [b]) => a - b);
  const problems = ordered.slice(0, MAX_SYNTAX_PLACES).map(([offset, codes]) => {
    const { line, column } = lineAndColumn(text, offset);
    const said = [...codes].map(([code, count]) => `${code}${count > 1 ? ` ×${count}` : ""}`).join(", ");
    return `:${line}:${column}: is not valid JSON (${said} at line ${line}, column ${column})`;
  });
  const unsaid = ordered.slice(MAX_SYNTAX_PLACES);
  const [next] = unsaid;
  if (next) {
    const { line, column } = lineAndColumn(text, next[0]);
    problems.push(`:${line}:${column}: and ${unsaid.length} more place${unsaid.length > 1 ? "s" : ""} from here on where the JSON does not parse, often only because of a mistake above; fix the ones above and check again`);
  }
  return problems;
}

/**
 * Parse; syntax errors come back as ":line:column: is not valid JSON (…)" problems, one per place
 * (see syntaxProblems). A text with no value in it at all is one problem saying it is empty,
 * followed by `emptyFix` (what the file must hold) when given. A valid document with a key given
 * twice has one problem per repeat, naming both places.
 */
export function parseJsonText(raw: string, emptyFix?: string): { doc: unknown; problems: string[] } {
  const text = withoutBom(raw);
  if (holdsNoValue(text)) {
    const what = text.trim() === "" ? "is empty" : "holds only comments, no JSON value";
    return { doc: undefined, problems: [`:1:1: ${what}${emptyFix ? `; ${emptyFix}` : ""}`] };
  }
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    const { line, column } = lineAndColumn(text, deep);
    return { doc: undefined, problems: [`:${line}:${column}: nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; a settings file needs a few (look for brackets opened here and never closed)`] };
  }
  const errors: jsonc.ParseError[] = [];
  const { doc, duplicates } = build(text, errors);
  const problems = syntaxProblems(text, errors);
  // After a syntax error the keys the parser recovered are guesses: only a valid document's repeats are said.
  if (problems.length === 0) {
    for (const { path, offset, first } of duplicates) {
      const here = lineAndColumn(text, offset);
      const before = lineAndColumn(text, first);
      problems.push(`:${here.line}:${here.column}: key '${pathText(path)}' is given twice in one object (first at line ${before.line}, column ${before.column}); only one would be read, so merge the two or rename one`);
    }
  }
  return { doc, problems };
}

/**
 * Where a value is in the text (`key: true`: where its property starts), as ":line:column", or ""
 * without the text. A path that does not exist is placed at its nearest existing parent.
 */
export function jsonLocator(raw: string | undefined): (segments: (string | number)[], key?: boolean) => string {
  if (raw === undefined) return () => "";
  const text = withoutBom(raw);
  // A text too deep for the parser was refused by parseJsonText; nothing in it is placed.
  const root = tooDeepAt(text) === undefined ? jsonc.parseTree(text, [], PARSE_OPTIONS) : undefined;
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

/**
 * Problem lines placed by jsonLocator (":line:column: …") in the order of the text, top to bottom,
 * as a reader fixes them; a schema reports in its own order (`auth.type` before `timeoutMs` even
 * when written after it). Lines without a place keep their order, after the placed ones.
 */
export function inTextOrder(lines: readonly string[]): string[] {
  const place = (line: string): [number, number] => {
    const found = /^:(\d+):(\d+)/.exec(line);
    return found ? [Number(found[1]), Number(found[2])] : [Number.MAX_SAFE_INTEGER, 0];
  };
  return lines
    .map((line, index) => ({ line, index, at: place(line) }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.index - b.index)
    .map((entry) => entry.line);
}
