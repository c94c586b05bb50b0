import { spawn } from "node:child_process";
import { isMain } from "./is-main.js";

/**
 * Run shell commands side by side and fail if any fails: `npm test`'s pretest runs the lint beside
 * the build and typecheck, which are single-threaded and would otherwise leave the second core idle
 * for a minute of CI. Each command's output is held and written whole when it ends (stdout to
 * stdout, stderr to stderr, in their order), so the log reads as if they had run one after another.
 *
 *   node --import tsx scripts/together.ts "npm run build && npm run typecheck" "npm run lint"
 */

export interface Outcome {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function runHeld(command: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const held: Array<{ to: NodeJS.WriteStream; chunk: Buffer }> = [];
    child.stdout.on("data", (chunk: Buffer) => held.push({ to: process.stdout, chunk }));
    child.stderr.on("data", (chunk: Buffer) => held.push({ to: process.stderr, chunk }));
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      process.stdout.write(`\n[together] ${command}\n`);
      for (const { to, chunk } of held) to.write(chunk);
      resolve({ command, code, signal });
    };
    child.on("error", (error) => {
      held.push({ to: process.stderr, chunk: Buffer.from(`could not start it: ${error.message}\n`) });
      finish(null, null);
    });
    child.on("close", finish);
  });
}

/** Run every command at once; resolves with each one's outcome, in the order given. */
export function together(commands: string[]): Promise<Outcome[]> {
  return Promise.all(commands.map(runHeld));
}

/** What went wrong, one line per failed command (empty when all passed). */
export function failures(outcomes: Outcome[]): string[] {
  return outcomes
    .filter((o) => o.code !== 0)
    .map((o) => `[together] failed (${o.signal ? `signal ${o.signal}` : o.code === null ? "did not start" : `exit ${o.code}`}): ${o.command}`);
}

if (isMain(import.meta.url)) {
  const commands = process.argv.slice(2).filter((c) => c.trim() !== "");
  if (commands.length === 0) {
    console.error('scripts/together.ts: no command given; pass each shell command as one argument, e.g. node --import tsx scripts/together.ts "npm run build" "npm run lint"');
    process.exit(2);
  }
  const failed = failures(await together(commands));
  for (const line of failed) console.error(line);
  process.exit(failed.length === 0 ? 0 : 1);
}
