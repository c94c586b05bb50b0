import { lazyDefaultValidator } from "./sdk-lazy-validator.js";

/**
 * Used only by the bundled build (scripts/bundle.ts): what the client SDK's own
 * `@modelcontextprotocol/client/_shims` import resolves to inside the bundles. The client's default
 * validator checks a tool's `structuredContent` against its `outputSchema`; its Ajv now loads when
 * the first such schema is met, not with the MCP adapter (which a cold catalog cache builds at
 * start to list its servers: about 1.5 MiB of idle memory).
 */
export const DefaultJsonSchemaValidator = lazyDefaultValidator("@modelcontextprotocol/client/_shims");

/** The client's Node shim says the same: in Node a failed `fetch` is never a browser CORS refusal. */
export const CORS_IS_POSSIBLE = false;
