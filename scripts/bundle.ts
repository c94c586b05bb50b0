import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { writeCheckedManifests } from "./checked-manifests.js";
import { isMain } from "./is-main.js";

/**
 * The second half of `npm run build` (after tsc): the entry points people run or import (the three
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
const INLINED = ["@modelcontextprotocol/server", "@modelcontextprotocol/client", "@modelcontextprotocol/core", "@modelcontextprotocol/node", "zod", "jsonc-parser", "minisearch", "eventsource", "eventsource-parser", "pkce-challenge", "@noble/hashes"];

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The server SDK's `_shims` (its default JSON Schema validator: a whole inlined Ajv, unused by the
 * runtime) becomes src/sdk-server-shims.ts, which loads the SDK's own validator on first use.
 */
function lazyServerShims(root: string): Plugin {
  return {
    name: "lazy-server-shims",
    setup(b) {
      b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: path.join(root, "src", "sdk-server-shims.ts") }));
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
  // Chunk names carry a content hash: the last build's would pile up.
  rmSync(path.join(root, "dist", "chunks"), { recursive: true, force: true });
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
    plugins: [lazyServerShims(root), keepOthersExternal],
  });
  const metaFile = path.join(root, "dist", "bundle-meta.json");
  writeFileSync(metaFile, JSON.stringify(result.metafile));
  return metaFile;
}

/**
 * What a start loads only on first use, beside the bundles: the precompiled validators (CommonJS,
 * `require`d by spec-check.ts on the first check), and the record of the bundled manifests checked
 * now, which lets a start skip checking them (src/plugins/checked-manifests.ts).
 */
export async function writeBesideBundles(root = ROOT): Promise<void> {
  copyFileSync(path.join(root, "src", "validators.generated.cjs"), path.join(root, "dist", "validators.generated.cjs"));
  const { failed } = await writeCheckedManifests(root);
  for (const line of failed) process.stderr.write(`bundled plugin manifest not recorded as checked: ${line}\n`);
}

if (isMain(import.meta.url)) {
  await bundle();
  await writeBesideBundles();
}
