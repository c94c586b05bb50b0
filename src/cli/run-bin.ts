import { main } from "./main.js";

/** Errors that are the user's to fix: said in one line, without a stack trace. */
const EXPECTED_ERRORS = new Set(["ConfigError", "ManifestError", "HttpOptionsError", "DatasetError", "StateSettingError", "SharedStateError"]);

/** How long a one-off command that has answered may stay for what it started to finish. */
const LINGER_MS = 2000;

/**
 * What every bin does: run `main` with the words it was given (after the command the bin stands
 * for), exit with its code (a server keeps running: -1), and turn a thrown error into one line on
 * stderr and exit 1.
 */
export function runBin(name: string, leading: readonly string[] = []): void {
  main([...leading, ...process.argv.slice(2)], name).then(
    (code) => {
      if (code < 0) return;
      process.exitCode = code;
      // A one-off command is done: it exits by itself once nothing is left to run. Plugin code it
      // imported may keep Node's loop alive (a skill whose top level waits ten minutes, reported
      // past its import deadline), so it exits shortly after the answer even then. Unref'd: an
      // ordinary run does not wait for this timer.
      setTimeout(() => process.exit(code), LINGER_MS).unref();
    },
    (error: unknown) => {
      const expected = error instanceof Error && EXPECTED_ERRORS.has(error.name);
      process.stderr.write(`${name}: ${error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
      process.exit(1);
    },
  );
}
