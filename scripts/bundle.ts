import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { writeCheckedManifests } from "./checked-manifests.js";
import { VALIDATORS_FOLDER } from "../src/validators-folder.js";
import { cleanBundleOutput } from "./clean-dist.js";
import { isMain } from "./is-main.js";

/**
 * The last step of `npm run build` (after scripts/clean-dist.ts has emptied dist/, so no chunk of
 * an earlier build or validator no longer generated stays behind, and tsc): the entry points people run or import (the three
 * bins and the package's exports) are rebuilt by esbuild as ES module bundles over tsc's files of
 * the same name, with the code they share in `dist/chunks/` and every dynamic `import()` of the
 * source (adapter kinds, the text layer, the HTTP transports) kept as a chunk of its own, loaded
 * when first needed.
 *
 * Why: before tools/list a stdio start loaded ~270 ES modules, and reading, resolving and
 * compiling that many files cost more CPU than the runtime's own start work (bench/perf.ts, the
 * spawn row; README "What loads when"). One shared set of chunks also keeps one copy of every
 * class for the bins and for plugin code that imports `agent-tools-runtime/adapters` or `/plugin`.
 *
 * Bundled: the runtime's code and the ES-module packages on the start path (the MCP SDK and zod,
 * the JSON-with-comments parser, MiniSearch). Left as imports of node_modules: everything loaded
 * only later or only sometimes (just-bash, the tokenizer, the sentence model, OpenTelemetry,
 * ioredis, Ajv, the OpenAPI parser…) and CommonJS packages. tsc's per-file output stays in dist
 * beside the bundles (declarations, the sentence model's worker thread, benches that import
 * internals).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const ENTRY_POINTS = ["bin/agent-tools.ts", "bin/agent-tools-mcp.ts", "bin/agent-tools-mcp-http.ts", "index.ts", "plugin.ts", "adapter-kit.ts"];

/** Packages inlined into the bundles; any other bare import stays an import. */
const INLINED = ["@modelcontextprotocol/server", "@modelcontextprotocol/client", "@modelcontextprotocol/core", "@modelcontextprotocol/node", "zod", "jsonc-parser", "minisearch", "eventsource", "eventsource-parser", "pkce-challenge"];

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The SDK packages' `_shims` (their default JSON Schema validator: a whole inlined Ajv each; the
 * server's is unused by the runtime, the client's checks tools' output schemas) become
 * src/sdk-server-shims.ts and src/sdk-client-shims.ts, which load the package's own validator on
 * first use (src/sdk-lazy-validator.ts).
 */
function lazySdkShims(root: string): Plugin {
  return {
    name: "lazy-sdk-shims",
    setup(b) {
      b.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, (args) => ({ path: path.join(root, "src", `sdk-${args.path.split("/")[1]}-shims.ts`) }));
    },
  };
}

/** The name the spliced code calls src/sdk-jsonrpc-guards.ts by, inside the SDK's module. */
const GUARDS = "__agentToolsFastGuards";

/**
 * Each splice: a piece of the SDK's code (found exactly once) and what it becomes. The type guards
 * ask the hand-written answer first and the SDK's zod parse when that answer is `undefined`; the
 * 2026-07-28 codec's two envelope checks return "valid" at once for an envelope the hand-written
 * check is sure of, and otherwise run as before.
 */
const GUARD_SPLICES: ReadonlyArray<readonly [find: string, replace: string]> = [
  ...(
    [
      ["isJSONRPCRequest", "JSONRPCRequestSchema", "isRequest"],
      ["isJSONRPCNotification", "JSONRPCNotificationSchema", "isNotification"],
      ["isJSONRPCResultResponse", "JSONRPCResultResponseSchema", "isResultResponse"],
      ["isJSONRPCErrorResponse", "JSONRPCErrorResponseSchema", "isErrorResponse"],
      ["isJSONRPCResponse", "JSONRPCResponseSchema", "isResponse"],
    ] as const
  ).map(([guard, schema, fast]) => [`const ${guard} = (value) => ${schema}.safeParse(value).success;`, `const ${guard} = (value) => ${GUARDS}.${fast}(value) ?? ${schema}.safeParse(value).success;`] as const),
  ["\tvalidateEnvelopeMeta(meta) {\n\t\tconst issues = [];", `\tvalidateEnvelopeMeta(meta) {\n\t\tif (${GUARDS}.isPlainEnvelope(meta)) return [];\n\t\tconst issues = [];`],
  ["\tcheckInboundEnvelope(material) {\n\t\tif (material.envelope === void 0)", `\tcheckInboundEnvelope(material) {\n\t\tif (${GUARDS}.isPlainEnvelope(material.envelope)) return;\n\t\tif (material.envelope === void 0)`],
];

/** The SDK module (server or client package) that defines the guards and the 2026-07-28 codec. */
const SDK_GUARDS_MODULE = /@modelcontextprotocol[\\/](server|client)[\\/]dist[\\/]src-[^\\/]+\.mjs$/;

/**
 * Where `piece` stands in `text`, when it stands there exactly once; otherwise throws the message
 * `describe` makes of "not in" or "more than once in". Every splice below finds its place so: a
 * package upgrade that reshaped the code must fail the build, not splice into the wrong place.
 */
function indexOnce(text: string, piece: string, describe: (where: "not in" | "more than once in") => string): number {
  const at = text.indexOf(piece);
  if (at < 0 || text.indexOf(piece, at + piece.length) >= 0) throw new Error(describe(at < 0 ? "not in" : "more than once in"));
  return at;
}

/**
 * Splice the hand-written guards into one SDK module's text. Throws, naming what is missing, when
 * a piece is not found exactly once: an SDK upgrade that reshaped these must fail the build, not
 * quietly drop the fast path or splice into the wrong place.
 */
export function spliceSdkGuards(text: string, file: string, guardsModule: string): string {
  if (text.includes(GUARDS)) throw new Error(`${file} already mentions ${GUARDS}`);
  let out = text;
  for (const [find, replace] of GUARD_SPLICES) {
    const at = indexOnce(out, find, (where) => `scripts/bundle.ts: the MCP SDK changed shape: \`${find}\` is ${where} ${file}. Check src/sdk-jsonrpc-guards.ts against the SDK's schemas and update GUARD_SPLICES.`);
    out = out.slice(0, at) + replace + out.slice(at + find.length);
  }
  return `import * as ${GUARDS} from ${JSON.stringify(guardsModule)};\n${out}`;
}

/** src/sdk-jsonrpc-guards.ts spliced into the server and the client SDK; the build fails if either is not found. */
function fastSdkGuards(root: string): Plugin {
  const guardsModule = path.join(root, "src", "sdk-jsonrpc-guards.ts");
  return {
    name: "fast-sdk-guards",
    setup(b) {
      const spliced = new Set<string>();
      b.onStart(() => spliced.clear());
      b.onLoad({ filter: SDK_GUARDS_MODULE }, (args) => {
        const text = readFileSync(args.path, "utf8");
        // Only the module that defines the guards (the package's other src-* files, if any, pass through).
        if (!text.includes("const isJSONRPCRequest = ")) return undefined;
        const contents = spliceSdkGuards(text, args.path, guardsModule);
        spliced.add(SDK_GUARDS_MODULE.exec(args.path)![1]!);
        return { contents, loader: "js", resolveDir: path.dirname(args.path) };
      });
      b.onEnd((result) => {
        if (result.errors.length > 0) return undefined;
        const missing = ["server", "client"].filter((pkg) => !spliced.has(pkg));
        if (missing.length === 0) return undefined;
        return { errors: [{ text: `scripts/bundle.ts: the guards of @modelcontextprotocol/${missing.join(" and ")} were not spliced: no bundled module matched ${SDK_GUARDS_MODULE} with \`const isJSONRPCRequest = \`. The SDK's layout changed; update fastSdkGuards.` }] };
      });
    },
  };
}

/** pkce-challenge's Node build, inlined with the client SDK (its OAuth code). */
const PKCE_MODULE = /[\\/]pkce-challenge[\\/]dist[\\/]index\.node\.js$/;
/** Its top-level lookup of the WebCrypto object: `crypto = globalThis.crypto?.webcrypto ?? … ;`. */
const PKCE_CRYPTO_LOOKUP = /\bcrypto =(\s*globalThis\.crypto\?\.webcrypto \?\?[^;]*);/;

/**
 * pkce-challenge looks up WebCrypto when its module is evaluated, that is whenever the MCP client
 * is imported (a cold catalog cache's first listing, any call of an MCP server), and reading
 * `globalThis.crypto` makes Node load its WebCrypto (about 1 MiB of idle memory). The lookup
 * becomes a thenable that runs the same expression on the first `await crypto` (the module only
 * ever awaits it), so it happens when a PKCE challenge is first made. Throws, naming what is
 * missing, when the lookup is not found exactly once.
 */
export function spliceLazyPkceCrypto(text: string, file: string): string {
  const found = PKCE_CRYPTO_LOOKUP.exec(text);
  if (!found || PKCE_CRYPTO_LOOKUP.exec(text.slice(found.index + found[0].length))) {
    throw new Error(`scripts/bundle.ts: pkce-challenge changed shape: its WebCrypto lookup (${PKCE_CRYPTO_LOOKUP}) is ${found ? "more than once in" : "not in"} ${file}. Update lazyClientGlobals.`);
  }
  const lazy = `crypto = { then(resolve, reject) { __agentToolsWebCrypto ??= Promise.resolve(${found[1]}\n); return __agentToolsWebCrypto.then(resolve, reject); } };`;
  return `let __agentToolsWebCrypto;\n${text.slice(0, found.index)}${lazy}${text.slice(found.index + found[0].length)}`;
}

/** eventsource-parser's stream module, inlined with the client SDK (its SSE and Streamable HTTP transports). */
const SSE_STREAM_MODULE = /[\\/]eventsource-parser[\\/]dist[\\/]stream\.js$/;
const SSE_STREAM_CLASS = "class EventSourceParserStream extends TransformStream {";
const SSE_STREAM_END = "\n}\nexport {";

/**
 * eventsource-parser declares `class EventSourceParserStream extends TransformStream` at the top of
 * its module, and reading the `TransformStream` global makes Node load its web streams (about half
 * a MiB), whenever the MCP client is imported, stdio-only processes included. The class is made on
 * the first `new EventSourceParserStream(…)` instead (an HTTP server's event stream), by a function
 * of the same name that returns the instance (as a constructor may). Throws when the class or its
 * end is not found exactly once.
 */
export function spliceLazySseStream(text: string, file: string): string {
  const once = (piece: string): number => indexOnce(text, piece, (where) => `scripts/bundle.ts: eventsource-parser changed shape: \`${piece.trim()}\` is ${where} ${file}. Update lazyClientGlobals.`);
  const start = once(SSE_STREAM_CLASS);
  const end = once(SSE_STREAM_END);
  if (end < start) throw new Error(`scripts/bundle.ts: eventsource-parser changed shape: its exports come before ${SSE_STREAM_CLASS} in ${file}. Update lazyClientGlobals.`);
  const body = text.slice(start, end + 2);
  const lazy = `let __agentToolsSseStream;\nfunction EventSourceParserStream(options) {\n  __agentToolsSseStream ??= ${body};\n  return new __agentToolsSseStream(options);\n}\n`;
  return `${text.slice(0, start)}${lazy}${text.slice(end + 2)}`;
}

/** The two splices above, on the client SDK's inlined helpers; either fails the build when it cannot apply. */
function lazyClientGlobals(): Plugin {
  return {
    name: "lazy-client-globals",
    setup(b) {
      const load = (splice: (text: string, file: string) => string) => (args: { path: string }) => ({ contents: splice(readFileSync(args.path, "utf8"), args.path), loader: "js" as const, resolveDir: path.dirname(args.path) });
      b.onLoad({ filter: PKCE_MODULE }, load(spliceLazyPkceCrypto));
      b.onLoad({ filter: SSE_STREAM_MODULE }, load(spliceLazySseStream));
    },
  };
}

const keepOthersExternal: Plugin = {
  name: "keep-others-external",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:") || !INLINED.includes(packageOf(args.path))) return { path: args.path, external: true };
      return undefined;
    });
  },
};

/** Build the bundles into `dist`; returns the metafile's path (which source files each output holds). */
export async function bundle(root = ROOT): Promise<string> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS.map((e) => path.join("src", e)),
    outbase: "src",
    outdir: "dist",
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // jsonc-parser's "main" is a UMD build that requires its own files at run time; its ESM build bundles.
    mainFields: ["module", "main"],
    // Whitespace and syntax only: function and class names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "linked",
    metafile: true,
    logLevel: "warning",
    plugins: [lazySdkShims(root), fastSdkGuards(root), lazyClientGlobals(), keepOthersExternal],
  });
  const metaFile = path.join(root, "dist", "bundle-meta.json");
  writeFileSync(metaFile, JSON.stringify(result.metafile));
  return metaFile;
}

/**
 * What a start loads only on first use, beside the bundles: the precompiled validators (CommonJS,
 * one file each, `require`d by spec-check.ts on a validator's first check), and the record of the bundled manifests checked
 * now, which lets a start skip checking them (src/plugins/checked-manifests.ts).
 */
export async function writeBesideBundles(root = ROOT): Promise<void> {
  cpSync(path.join(root, "src", VALIDATORS_FOLDER), path.join(root, "dist", VALIDATORS_FOLDER), { recursive: true });
  const { failed } = await writeCheckedManifests(root);
  for (const line of failed) process.stderr.write(`bundled plugin manifest not recorded as checked: ${line}\n`);
}

if (isMain(import.meta.url)) {
  // Run alone (not after clean-dist), old-hash chunks would otherwise pile up beside the new ones.
  cleanBundleOutput();
  await bundle();
  await writeBesideBundles();
}
