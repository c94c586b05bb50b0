/**
 * A plugin module (adapter or skill) that does not parse: Node's import error names no line, so
 * the message says how to find it. Undefined for any other failure.
 */
export function syntaxErrorWithTip(error: unknown, file: string): string | undefined {
  return error instanceof SyntaxError ? `${error.name}: ${error.message} (\`node --check ${file}\` shows where)` : undefined;
}
