import type { SandboxAccount } from "./memory-budget.js";
import { exactSizeWords, MIB, sizeWords } from "../byte-size.js";

/**
 * The variables a session carries from one call to the next live in the server's memory as much
 * as its files do, so they are charged to the same account (the sandbox's cap and the budget of
 * all sandboxes). Without that, `export V$i=$(printf '%010000000d' 0)` once per call grew the
 * server until it died out of memory, with every session in it.
 *
 * And they are bounded on their own: one carried variable holds at most
 * MAX_CARRIED_VARIABLE_BYTES, all of them MAX_CARRIED_TOTAL_BYTES. Every later line pays for them
 * again, on the server's one thread: just-bash copies a variable as it expands it (a carried 30
 * MB one made each `echo ${#a}` cost 1.2 s and hundreds of MB), and `set` or `env` print them all
 * (100 of 1 MB: `set | wc -c` held the thread 9.5 s, `env` took RSS to 437 MB). A shell variable
 * is for a name, an id, a line; a large value belongs in a file, which the session keeps as well
 * and commands read as a stream.
 */

/** The most bytes one carried variable may hold (its name and value in UTF-8); one over it is not carried. */
export const MAX_CARRIED_VARIABLE_BYTES = MIB;

/** The most bytes all the variables a session carries may hold together (the fixed starting set included: a few hundred bytes). */
export const MAX_CARRIED_TOTAL_BYTES = 4 * MIB;

/** Bytes a variable holds, as the account counts file bytes (UTF-8). */
function variableBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value);
}

export function envBytes(env: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const [name, value] of Object.entries(env)) total += variableBytes(name, value);
  return total;
}

export interface CarriedVariables {
  env: Record<string, string>;
  /** Bytes now charged for `env`. */
  bytes: number;
  /** Set when some variables were refused: a line per bound, naming them, their size and the bound. */
  refusal?: string;
}

/** The words that start every line about variables not carried. */
const NOT_KEPT = "agent-tools: variables not kept for the next call (they keep their value from before this command line; new ones are unset)";

/**
 * Charge the move from `previous` (already charged as `previousBytes`) to `offered`, the variables
 * the command line ended with. Each bound in turn (one variable's, all variables', the account's)
 * puts back the variables the line set or grew past it, as they were (a new one is unset), and
 * says so in a line of `refusal`; the others and everything else the line did are kept.
 */
export function chargeCarriedEnv(account: SandboxAccount | undefined, previous: Readonly<Record<string, string>>, previousBytes: number, offered: Record<string, string>): CarriedVariables {
  const lines: string[] = [];
  const oversized = Object.keys(offered).filter((name) => offered[name] !== previous[name] && variableBytes(name, offered[name] ?? "") > MAX_CARRIED_VARIABLE_BYTES);
  let env = oversized.length ? putBack(previous, offered, oversized) : offered;
  if (oversized.length) {
    const first = oversized[0];
    lines.push(
      `${NOT_KEPT}: ${named(oversized, offered)}. A carried variable holds at most ${exactSizeWords(MAX_CARRIED_VARIABLE_BYTES)} (every later line pays for its size again); keep a large value in a file instead: printf '%s' "$${first}" > /tmp/${first}, then give the file to the next command (jq . /tmp/${first}), or read it back with "$(cat /tmp/${first})"`,
    );
  }
  const total = putBackUntil(previous, env, (candidate) => envBytes(candidate) <= MAX_CARRIED_TOTAL_BYTES);
  env = total.env;
  if (total.refused.length) {
    lines.push(`${NOT_KEPT}: ${named(total.refused, offered)}. The variables a session carries hold at most ${exactSizeWords(MAX_CARRIED_TOTAL_BYTES)} in all (every later line pays for them again); unset variables you no longer need, and keep large values in files`);
  }
  let bytes = envBytes(env);
  if (account) {
    let refusedBy = "";
    const charge = (candidate: Record<string, string>): boolean => {
      try {
        account.charge(envBytes(candidate) - previousBytes);
        return true;
      } catch (error) {
        refusedBy ||= (error as Error).message.replace(/^ENOSPC: /, "");
        return false;
      }
    };
    const charged = putBackUntil(previous, env, charge);
    if (charged.fits) {
      env = charged.env;
      bytes = envBytes(env);
    } else {
      // Nothing grew, yet the charge was refused (it cannot be: a smaller env only credits). Keep the previous env.
      env = { ...previous };
      bytes = previousBytes;
    }
    if (charged.refused.length || !charged.fits) {
      lines.push(`${NOT_KEPT}: ${named(charged.refused, offered)}. Carried variables count against the sandbox's memory with its files, and ${refusedBy}; unset variables you no longer need, and keep large values in files or cut down (grep/jq/head)`);
    }
  }
  return { env, bytes, ...(lines.length ? { refusal: lines.map((line) => `${line}\n`).join("") } : {}) };
}

/** `next` with `names` as they were in `previous` (unset where they were not there). */
function putBack(previous: Readonly<Record<string, string>>, next: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const env = { ...next };
  for (const name of names) {
    if (previous[name] === undefined) delete env[name];
    else env[name] = previous[name];
  }
  return env;
}

/**
 * `next` as it is when `fits` takes it; else with the variables that grew since `previous` put
 * back, the largest first, until `fits` takes it. `fits: false` when even all of them put back
 * does not fit.
 */
function putBackUntil(previous: Readonly<Record<string, string>>, next: Record<string, string>, fits: (env: Record<string, string>) => boolean): { env: Record<string, string>; refused: string[]; fits: boolean } {
  if (fits(next)) return { env: next, refused: [], fits: true };
  const grown = Object.keys(next)
    .filter((name) => next[name] !== previous[name] && variableBytes(name, next[name] ?? "") > variableBytes(name, previous[name] ?? ""))
    .sort((a, b) => variableBytes(b, next[b] ?? "") - variableBytes(a, next[a] ?? ""));
  let env = next;
  const refused: string[] = [];
  for (const name of grown) {
    env = putBack(previous, env, [name]);
    refused.push(name);
    if (fits(env)) return { env, refused, fits: true };
  }
  return { env, refused, fits: false };
}

/** "a (2.9 MiB), b (900.0 KiB)": the variables, each with the size the line left it at. */
function named(names: readonly string[], offered: Readonly<Record<string, string>>): string {
  return names.map((name) => `${name} (${sizeWords(variableBytes(name, offered[name] ?? ""))})`).join(", ");
}
