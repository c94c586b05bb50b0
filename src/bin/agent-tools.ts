#!/usr/bin/env node
import { main } from "../cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // Configuration mistakes are the user's to fix: say what and where, without a stack trace.
    const expected = error instanceof Error && ["ConfigError", "ManifestError", "HttpOptionsError"].includes(error.name);
    process.stderr.write(`agent-tools: ${error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
    process.exit(1);
  },
);
