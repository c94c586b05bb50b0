import { catalogCacheDir, clearFileStore, describeFileStore } from "../runtime/catalog-cache/store.js";
import { clearEmbeddingCache, describeEmbeddingCache, embeddingCacheDir } from "../runtime/search/semantic/embedding-cache.js";

/**
 * `agent-tools cache`: where the plugin catalog cache lives and what it holds, with the semantic
 * search's embeddings kept beside it; `agent-tools cache clear`: empty both (the next start lists
 * every plugin again, and the next search embeds the catalogs again).
 */
export async function cacheCommand(args: readonly string[], env: NodeJS.ProcessEnv, print: (value: unknown) => void): Promise<number> {
  const action = args[0] ?? "show";
  if (action !== "show" && action !== "clear") {
    process.stderr.write(`agent-tools cache: unknown action '${action}'; use \`agent-tools cache\` to see the cache or \`agent-tools cache clear\` to empty it\n`);
    return 2;
  }
  const dir = catalogCacheDir(env, process.platform, (message) => process.stderr.write(`agent-tools cache: ${message}\n`));
  if (!dir) {
    print({
      location: null,
      note: "the catalog cache is off: AGENT_TOOLS_CATALOG_CACHE is set to off, or no HOME (XDG_CACHE_HOME, LOCALAPPDATA) names a cache folder; AGENT_TOOLS_CACHE_DIR picks one",
    });
    return 0;
  }
  const embeddings = embeddingCacheDir(env)!;
  try {
    if (action === "clear") {
      const { cleared, leftAlone } = await clearFileStore(dir);
      // The folder may be the user's (AGENT_TOOLS_CACHE_DIR): what the runtime did not write stays, and is said.
      const others = leftAlone.length
        ? { leftAlone, note: `left alone in ${dir}: what this runtime did not write (its catalogs are named <digest>.json)` }
        : {};
      print({ location: dir, cleared, ...others, embeddings: { location: embeddings, cleared: clearEmbeddingCache(embeddings) } });
      return 0;
    }
    print({ location: dir, ...(await describeFileStore(dir)), embeddings: { location: embeddings, ...describeEmbeddingCache(embeddings) } });
    return 0;
  } catch (error) {
    // Not "0 entries": a folder that cannot be read cannot be written either, and the server keeps nothing there.
    process.stderr.write(
      `agent-tools cache: cannot ${action === "clear" ? "clear" : "read"} the catalog cache folder ${dir}: ${(error as Error).message}. ` +
        `The server cannot keep catalogs there either (each start lists every server again). Set AGENT_TOOLS_CACHE_DIR to a folder this user can write, or AGENT_TOOLS_CATALOG_CACHE=off\n`,
    );
    return 1;
  }
}
