import { nodeCrypto } from "../node-crypto.js";
import { StateSettingError } from "../state/redis-url.js";

/**
 * The runtime's signing key for state that travels through clients: workspace handles and the
 * `requestState` of a confirmation round. AGENT_TOOLS_STATE_KEY (hex or base64, at least 32
 * bytes) lets instances behind a balancer share it; without it a random key is made once per
 * process, so handles and pending confirmations do not outlive the process.
 */

let processKey: Buffer | undefined;

function stateKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.AGENT_TOOLS_STATE_KEY?.trim();
  if (!raw) return undefined;
  const key = /^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0 ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  // A StateSettingError: the bins say it in one line, without a stack (run-bin.ts).
  if (key.length < 32) {
    throw new StateSettingError(`AGENT_TOOLS_STATE_KEY must hold at least 32 bytes (64 hex characters, or base64); it holds ${key.length}. Make one with \`openssl rand -hex 32\``);
  }
  return key;
}

/** The key of this process: from the environment, else random (made once). */
export function stateKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  processKey ??= stateKeyFromEnv(env) ?? nodeCrypto().randomBytes(32);
  return processKey;
}

/**
 * The same key, for a holder that signs nothing at start: AGENT_TOOLS_STATE_KEY is checked now (a
 * malformed one still fails the start), a random key is made on the first call (it needs
 * node:crypto, which a start does not load).
 */
export function lazyStateKey(env: NodeJS.ProcessEnv = process.env): () => Buffer {
  const fromEnv = stateKeyFromEnv(env);
  return () => fromEnv ?? stateKey(env);
}
