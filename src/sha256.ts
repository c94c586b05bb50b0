import { nodeCrypto } from "./node-crypto.js";

/**
 * SHA-256 as hex, for what a start hashes: catalog cache keys (which digest the values of
 * environment variables, secrets among them, so the hash must stay one-way), the bundled
 * manifests' build record and a held call's arguments. Native (node:crypto, loaded on first use):
 * a start hashes the bundled skill files anyway (plugins/skills.ts), and the JavaScript SHA-256 it
 * used before ran in V8's interpreter at start. The digests are the same, so keys and records made
 * before still match.
 */
export const sha256Hex = (data: string | Uint8Array): string => nodeCrypto().createHash("sha256").update(data).digest("hex");
