import { main } from "./main.js";

/** Errors that are the user's to fix: said in one line, without a stack trace. */
const EXPECTED_ERRORS = new Set(["ConfigError", "ManifestError", "HttpOptionsError", "DatasetError"]);

/**
 * What every bin does: run `main` with the words it was given (after the command the bin stands
 * for), exit with its code (a server keeps running: -1), and turn a thrown error into one line on
 * stderr and exit 1.
 */
export function runBin(name: string, leading: readonly string[] = []): void {
  main([...leading, ...process.argv.slice(2)], name).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      const expected = error instanceof Error && EXPECTED_ERRORS.has(error.name);
      process.stderr.write(`${name}: ${error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
      process.exit(1);
    },
  );
}
