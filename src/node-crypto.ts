/**
 * `node:crypto`, loaded on first use. Importing it costs about 1 MiB of idle memory (pages of the
 * node binary), and a stdio start needs none of it: ids, nonces, signatures and digests are made
 * later, on calls. Modules on the start path reach it through here instead of a static import
 * (test/bundle.start-path checks that a warm start never loads it).
 */
export const nodeCrypto = (): typeof import("node:crypto") => process.getBuiltinModule("node:crypto");
