import path from "node:path";

/**
 * A plugin module (adapter or skill) that does not parse: Node's import error names no line, so
 * the message says how to find it. Undefined for any other failure.
 */
export function syntaxErrorWithTip(error: unknown, file: string): string | undefined {
  return error instanceof SyntaxError ? `${error.name}: ${error.message} (\`node --check ${file}\` shows where)` : undefined;
}

/** TypeScript (and its module forms): Node runs a plugin's modules as JavaScript, so these are compiled first. */
export const TYPESCRIPT_FILE = /\.(ts|mts|cts|tsx)$/;

/**
 * A plugin module Node will not import because of its kind of file (`adapter.ts`: "Unknown file
 * extension .ts"): what to write instead. Undefined for any other failure.
 */
export function fileKindWithTip(error: unknown, file: string): string | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "ERR_UNKNOWN_FILE_EXTENSION") return undefined;
  return notJavaScriptProblem(file);
}

/**
 * What a plugin module that is not JavaScript (`adapter.ts`, `skills/x.ts`) is told: the one rule
 * for an adapter Node refused and a skill file the runtime does not import.
 */
export function notJavaScriptProblem(file: string): string {
  const ext = path.extname(file);
  const tip = TYPESCRIPT_FILE.test(file) ? `compile it to JavaScript (tsc, esbuild) and name the .mjs or .js file it makes` : "name a JavaScript module (.mjs or .js) instead";
  return `Node runs a plugin's modules as JavaScript and does not import a '${ext || path.basename(file)}' file; ${tip}`;
}

/** Why importing a plugin module failed, with the fix where the runtime knows it. */
export function importFailureWithTip(error: unknown, file: string): string | undefined {
  return syntaxErrorWithTip(error, file) ?? fileKindWithTip(error, file);
}
