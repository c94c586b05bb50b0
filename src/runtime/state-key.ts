import { nodeCrypto } from "../node-crypto.js";
import { StateSettingError } from "../state/redis-url.js";

/**
 * The runtime's signing key for state that travels through clients: workspace handles and the
 * `requestState` of a confirmation round. AGENT_TOOLS_STATE_KEY (hex or base64, at least 32
 * bytes) lets instances behind a balancer share it; without it a random key is made once per
 * process, so handles and pending confirmations do not outlive the process. A team gateway on
 * Redis without the setting shares one through Redis and may adopt the fleet's later
 * (gateway/state-key-watch.ts): the keys it signed with before are still accepted.
 */

let processKey: Buffer | undefined;
/** Keys this process signed with before it adopted the fleet's current one, newest first. */
let previousKeys: Buffer[] = [];
/**
 * How many earlier keys a process still accepts. One change is the case this exists for (Redis
 * restarted empty and another instance made a new key); a few more cost nothing and cover a
 * flapping Redis, while an old key is not kept without end.
 */
const MAX_PREVIOUS_KEYS = 4;

/** A key's text (hex or base64) as bytes, whatever its length. */
function stateKeyBytes(raw: string): Buffer {
  return /^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0 ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
}

/**
 * What is wrong with a key's text, as a whole sentence naming `source` (never the key: it is a
 * credential), or undefined when it holds at least 32 bytes. The one rule: the server's start
 * (parseStateKey) and the environment check that validate and status list (env-settings.ts) both use it.
 */
export function stateKeyProblem(raw: string, source = "AGENT_TOOLS_STATE_KEY"): string | undefined {
  const length = stateKeyBytes(raw).length;
  return length < 32 ? `${source} must hold at least 32 bytes (64 hex characters, or base64); it holds ${length}. Make one with \`openssl rand -hex 32\`` : undefined;
}

/** A key's text (hex or base64, at least 32 bytes) as bytes; `source` names where it came from in the error. */
export function parseStateKey(raw: string, source = "AGENT_TOOLS_STATE_KEY"): Buffer {
  const problem = stateKeyProblem(raw, source);
  // A StateSettingError: the bins say it in one line, without a stack (run-bin.ts).
  if (problem) throw new StateSettingError(problem);
  return stateKeyBytes(raw);
}

function stateKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.AGENT_TOOLS_STATE_KEY?.trim();
  return raw ? parseStateKey(raw) : undefined;
}

/** The key of this process: from the environment, else random (made once); the fleet's key once one was adopted. */
export function stateKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  processKey ??= stateKeyFromEnv(env) ?? nodeCrypto().randomBytes(32);
  return processKey;
}

/**
 * Every key a signature is checked against: the current one first, then the ones this process
 * signed with before it adopted another (adoptStateKey), so what it handed out earlier keeps working.
 */
export function acceptedStateKeys(env: NodeJS.ProcessEnv = process.env): Buffer[] {
  return [stateKey(env), ...previousKeys];
}

/**
 * Sign with `key` from now on (a team instance found another key in Redis: the fleet's). The
 * current key is kept for checking only. Returns false when `key` is already the current one.
 */
export function adoptStateKey(key: Buffer, env: NodeJS.ProcessEnv = process.env): boolean {
  const current = stateKey(env);
  if (current.equals(key)) return false;
  previousKeys = [current, ...previousKeys.filter((k) => !k.equals(key))].slice(0, MAX_PREVIOUS_KEYS);
  processKey = key;
  return true;
}

/**
 * The keys, for a holder that signs nothing at start: AGENT_TOOLS_STATE_KEY is checked now (a
 * malformed one still fails the start), a random key is made on the first call (it needs
 * node:crypto, which a start does not load). Read at each use: the current key may change.
 */
export function lazyStateKeys(env: NodeJS.ProcessEnv = process.env): () => Buffer[] {
  stateKeyFromEnv(env);
  return () => acceptedStateKeys(env);
}
