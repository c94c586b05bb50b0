import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/**
 * SHA-256 as hex, in JavaScript (@noble/hashes, inlined by the bundle), for what a start hashes:
 * catalog cache keys (which digest the values of environment variables, secrets among them, so the
 * hash must stay one-way) and the bundled manifests' build record. node:crypto would give the same
 * digests but costs about 1 MiB of idle memory in a process that needs it for nothing else at
 * start (node-crypto.ts); the digests are the same, so keys and records made before still match.
 */
export const sha256Hex = (data: string | Uint8Array): string => bytesToHex(sha256(typeof data === "string" ? utf8ToBytes(data) : data));
