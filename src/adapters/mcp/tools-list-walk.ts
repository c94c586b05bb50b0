import { echoedName } from "../../runtime/argument-value.js";

/**
 * Guards the SDK client's walk over the pages of `tools/list` (its no-cursor listTools follows
 * `nextCursor` page by page) against a server whose pagination never ends.
 *
 * Why: the SDK stops only on a page that repeats the one before it, and otherwise fails the whole
 * listing after 64 pages (its `listMaxPages`): a server whose cursors go round (a → b → a), or
 * that always gives one more, left its plugin without a single tool, with an error whose hint
 * said to fix the arguments. Here the walk ends at a cursor already asked for (any of the walk's,
 * not only the last) or after MAX_PAGES pages, keeping the tools read so far; a note says why,
 * and the runtime reports it as a problem of the plugin's tool list (help and stderr).
 */

/** The most tools/list pages one listing reads (the SDK's own cap is set just above, as a backstop). */
export const MAX_PAGES = 300;

interface Walk {
  cursors: Set<string>;
  pages: number;
  tools: number;
}

/** The stop note's count of the tools kept. */
function toolCount(count: number): string {
  return count === 1 ? "1 tool" : `${count} tools`;
}

export class ToolsListWalks {
  /**
   * The walk in progress, per the request options the SDK passes to every page of one walk (the
   * same object), so two listings at once on one client keep apart; the client itself without options.
   */
  readonly #walks = new WeakMap<object, Walk>();

  /**
   * Before a page is asked for: undefined to send its request, or the note saying why the walk
   * ends here (its request is then not sent, and the walk ends as on a last page).
   */
  stopBefore(cursor: unknown, key: object): string | undefined {
    if (typeof cursor !== "string") {
      this.#walks.set(key, { cursors: new Set(), pages: 0, tools: 0 });
      return undefined;
    }
    const walk = this.#walks.get(key);
    if (!walk) return undefined;
    const kept = `the ${toolCount(walk.tools)} of the ${walk.pages === 1 ? "first page are" : `first ${walk.pages} pages are`} kept`;
    if (walk.cursors.has(cursor)) {
      this.#walks.delete(key);
      return `its pagination went round: after ${walk.pages} pages, nextCursor was '${echoedName(cursor)}' again, a cursor already followed (a fault in the server's pagination); the listing stopped there and ${kept}. Report it to the server's maintainers.`;
    }
    if (walk.pages >= MAX_PAGES) {
      this.#walks.delete(key);
      return `its pagination did not end: it gave a nextCursor after ${MAX_PAGES} pages, the most one listing reads (a fault in the server's pagination, or a list far too long to serve); ${kept} and the pages after are not read. Report it to the server's maintainers.`;
    }
    walk.cursors.add(cursor);
    return undefined;
  }

  /** After a page was read: its tools counted for the stop note. */
  read(page: unknown, key: object): void {
    const walk = this.#walks.get(key);
    if (!walk) return;
    walk.pages++;
    const tools = (page as { tools?: unknown } | undefined)?.tools;
    if (Array.isArray(tools)) walk.tools += tools.length;
  }
}
