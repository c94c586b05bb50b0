import { randomBytes } from "node:crypto";

/**
 * The runtime's signing key for state that travels through clients: workspace handles and the
 * `requestState` of a confirmation round. AGENT_TOOLS_STATE_KEY (hex or base64, at least 32
 * bytes) lets instances behind a balancer share it; without it a random key is made once per
 * process, so handles and pending confirmations do not outlive the process.
 */

let processKey: Buffer | undefined;

export function stateKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.AGENT_TOOLS_STATE_KEY?.trim();
  if (!raw) return undefined;
  const key = /^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0 ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length < 32) throw new Error("AGENT_TOOLS_STATE_KEY must hold at least 32 bytes (64 hex characters); make one with `openssl rand -hex 32`");
  return key;
}

/** The key of this process: from the environment, else random (made once). */
export function stateKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  processKey ??= stateKeyFromEnv(env) ?? randomBytes(32);
  return processKey;
}
