import type { SandboxAccount } from "./memory-budget.js";
import { sizeWords } from "../byte-size.js";

/**
 * The variables a session carries from one call to the next live in the server's memory as much
 * as its files do, so they are charged to the same account (the sandbox's cap and the budget of
 * all sandboxes). Without that, `export V$i=$(printf '%010000000d' 0)` once per call grew the
 * server until it died out of memory, with every session in it.
 */

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
  /** Set when some variables were refused: a line naming them, their size and the spent budget. */
  refusal?: string;
}

/**
 * Charge the move from `previous` (already charged as `previousBytes`) to `next`. When the account
 * refuses, the variables the command line set or grew are put back as they were (a new one is
 * dropped), the largest first, until the rest fits; the others and everything else the command
 * line did are kept.
 */
export function chargeCarriedEnv(account: SandboxAccount | undefined, previous: Readonly<Record<string, string>>, previousBytes: number, next: Record<string, string>): CarriedVariables {
  const bytes = envBytes(next);
  if (!account) return { env: next, bytes };
  let refusedBy: string;
  try {
    account.charge(bytes - previousBytes);
    return { env: next, bytes };
  } catch (error) {
    refusedBy = (error as Error).message.replace(/^ENOSPC: /, "");
  }
  const grown = Object.keys(next)
    .filter((name) => next[name] !== previous[name] && variableBytes(name, next[name] ?? "") > variableBytes(name, previous[name] ?? ""))
    .sort((a, b) => variableBytes(b, next[b] ?? "") - variableBytes(a, next[a] ?? ""));
  const env = { ...next };
  const refused: string[] = [];
  for (const name of grown) {
    const size = variableBytes(name, next[name] ?? "");
    if (previous[name] === undefined) delete env[name];
    else env[name] = previous[name];
    refused.push(`${name} (${sizeWords(size)})`);
    const kept = envBytes(env);
    try {
      account.charge(kept - previousBytes);
      return { env, bytes: kept, refusal: refusalLine(refused, refusedBy) };
    } catch {
      // still too much: put back the next largest as well
    }
  }
  // Nothing grew, yet the charge was refused (it cannot be: a smaller env only credits). Keep the previous env.
  return { env: { ...previous }, bytes: previousBytes, refusal: refusalLine(refused, refusedBy) };
}

function refusalLine(refused: readonly string[], refusedBy: string): string {
  return `agent-tools: variables not kept for the next call (they keep their value from before this command line; new ones are unset): ${refused.join(", ")}. Carried variables count against the sandbox's memory with its files, and ${refusedBy}; unset variables you no longer need, and keep large values in files or cut down (grep/jq/head)\n`;
}
