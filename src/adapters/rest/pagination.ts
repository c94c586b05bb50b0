import type { OutgoingRequest, RestClient, RestResponse } from "./client.js";
import { valueAt } from "../shared/json-path.js";
import { pageEnd, totalOf, type PageEnd } from "./page-end.js";
import type { PaginateSpec } from "./spec.js";
import { RestError, UrlGuardError } from "./errors.js";
import { pageKeyed } from "./idempotency.js";
import { resolveServerUrl, type BaseUrl } from "./url-guard.js";

/**
 * Pagination, per tool. `link` follows `Link: <…>; rel="next"` (each next URL must stay under the
 * base URL); `page` increments a page-number query parameter until page-end.ts finds the last page
 * (an empty one, the service's own sign, or one shorter than a page before it; never a page merely
 * shorter than the `perPage` asked for, which may be the service's cap).
 * Either stops after `maxPages`. A write's page requests each carry their own Idempotency-Key
 * (idempotency.ts pageKeyed). The result says honestly whether it is complete:
 *   { items, pages, complete: true }
 *   { items, pages, complete: false, stoppedBecause: "notAnArray" }
 *   { items, pages, complete: false, stoppedBecause: "maxPages", stoppedDetail }
 *   { items, pages, complete: false, stoppedBecause: "nextLinkRefused" | "lastPageUnconfirmed", stoppedDetail }
 * A Link next URL outside the base URL (another host, a credential in it, not http) is the
 * server's doing, not the caller's: it is not followed (credentials never leave the base), and
 * the pages read so far are kept, with `stoppedDetail` saying what the header pointed at.
 * "lastPageUnconfirmed": a short first page was probably the last, but the page after it, read to
 * make sure, was refused (a 404 for a page past the end); or a page held the same items as the one
 * before (a service that repeats its last page), and the copy was left out. The pages read are
 * kept and `stoppedDetail` says so.
 */

export interface PaginatedResult {
  items: unknown[];
  pages: number;
  complete: boolean;
  stoppedBecause?: "maxPages" | "notAnArray" | "nextLinkRefused" | "lastPageUnconfirmed";
  /** With "nextLinkRefused", "lastPageUnconfirmed" or "maxPages": why reading stopped, and what to do. */
  stoppedDetail?: string;
}

/** Statuses a service answers for a page number past its last one (Django REST framework: 404 "Invalid page."). */
const PAST_THE_END = new Set([400, 404, 416, 422]);

/** The `rel="next"` target of a Link header, or undefined. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2] ?? "")?.[1]?.toLowerCase().split(/\s+/) ?? [];
    if (rels.includes("next")) return match[1];
  }
  return undefined;
}

function pageItems(response: RestResponse, spec: PaginateSpec): unknown[] | undefined {
  const value = spec.itemsPath ? valueAt(response.data, spec.itemsPath) : response.data;
  return Array.isArray(value) ? value : undefined;
}

export async function paginate(
  client: RestClient,
  first: OutgoingRequest,
  spec: PaginateSpec,
  base: BaseUrl,
  signal: AbortSignal | undefined,
): Promise<PaginatedResult> {
  const items: unknown[] = [];
  let request: OutgoingRequest = first;
  let pageNumber = spec.start;
  if (spec.style === "page") {
    const explicit = first.url.searchParams.get(spec.param);
    if (explicit !== null && /^\d+$/.test(explicit)) pageNumber = Number(explicit);
    request = withQuery(first, spec.param, String(pageNumber));
  }
  // Both styles: a page size the caller did not choose is asked for (Link next URLs carry it on).
  if (spec.perPageParam && spec.perPage !== undefined && !first.url.searchParams.has(spec.perPageParam)) {
    request = withQuery(request, spec.perPageParam, String(spec.perPage));
  }
  const perPage = spec.perPageParam ? Number(request.url.searchParams.get(spec.perPageParam) ?? spec.perPage ?? NaN) : (spec.perPage ?? NaN);
  const firstPage = pageNumber;
  // page style: what page-end.ts weighs, and whether the page being read is a check of a short first page.
  let longest = 0;
  let previous: string | undefined;
  let checking = false;
  // A write's pages each carry a key of their own (idempotency.ts pageKeyed).
  const keyed = pageKeyed(first);
  for (let pages = 1; ; pages++) {
    let response: RestResponse;
    try {
      response = await client.send(keyed(request, pages), signal);
    } catch (error) {
      const status = error instanceof RestError ? error.status : undefined;
      if (!checking || status === undefined || !PAST_THE_END.has(status)) throw error;
      const stoppedDetail = `${shortFirstPage(items.length, perPage, firstPage)}; page ${pageNumber}, read to make sure, answered HTTP ${status}, as services do for a page past the last, but the service gave no sign either way. ${UNCONFIRMED_ADVICE}`;
      return { items, pages: pages - 1, complete: false, stoppedBecause: "lastPageUnconfirmed", stoppedDetail };
    }
    const found = pageItems(response, spec);
    if (!found) {
      // A page that is not a list cannot be concatenated: return what we have, and say so.
      if (pages === 1) return { items: [response.data], pages, complete: false, stoppedBecause: "notAnArray" };
      return { items, pages, complete: false, stoppedBecause: "notAnArray" };
    }
    let next: OutgoingRequest | undefined;
    let end: PageEnd = "last";
    if (spec.style === "link") {
      items.push(...found);
      const target = nextLink(response.headers.get("link"));
      if (target !== undefined) {
        try {
          next = { ...request, url: resolveServerUrl(target, response.url, base, "the service's Link header next URL") };
        } catch (error) {
          if (!(error instanceof UrlGuardError)) throw error;
          const stoppedDetail =
            `${error.message}; it was not followed (credentials are only sent under the base URL), so pages after page ${pages} were not read. ` +
            "The items here are the pages read so far. Tell the user the list is incomplete because the service pointed its next page elsewhere; narrowing the query (fewer items, fewer pages) may avoid the next page.";
          return { items, pages, complete: false, stoppedBecause: "nextLinkRefused", stoppedDetail };
        }
      }
    } else {
      // A service that answers every page number past the last with the last page again would
      // otherwise fill the result with copies of it, up to maxPages.
      const text = found.length > 0 ? JSON.stringify(found) : undefined;
      if (text !== undefined && text === previous) {
        const stoppedDetail = `page ${pageNumber} held the same items as page ${pageNumber - 1}, as a service does that answers a page past the last with the last page again, so it was left out; the service gave no sign either way. ${UNCONFIRMED_ADVICE}`;
        return { items, pages: pages - 1, complete: false, stoppedBecause: "lastPageUnconfirmed", stoppedDetail };
      }
      previous = text;
      items.push(...found);
      end = pageEnd({ found, body: response.data, longestBefore: longest, itemsRead: items.length, fromFirstPage: firstPage === spec.start, perPage }, spec);
      longest = Math.max(longest, found.length);
      if (end !== "last") {
        pageNumber += 1;
        next = withQuery(request, spec.param, String(pageNumber));
      }
    }
    if (!next) return { items, pages, complete: true };
    if (pages >= spec.maxPages) {
      const stoppedDetail =
        end === "check"
          ? `${shortFirstPage(items.length, perPage, firstPage)}, but maxPages (${spec.maxPages}) was reached before the next page could be read to make sure. ${UNCONFIRMED_ADVICE}`
          : maxPagesReached(items.length, totalOf(response.data, spec), spec);
      return { items, pages, complete: false, stoppedBecause: "maxPages", stoppedDetail };
    }
    checking = end === "check";
    request = next;
  }
}

const UNCONFIRMED_ADVICE =
  "The items here are most likely the whole list; if the user needs it complete, say it may not be. (The plugin's paginate block can name the service's own sign, hasMorePath or totalPath, to make this certain.)";

/**
 * The list goes on past the pages one call reads: how much was read (of how many, where the
 * service says), and what gets the rest: larger pages or a filter (the model's to choose), or a
 * higher maxPages (the plugin's, so the user's). A bare `stoppedBecause: "maxPages"` said none of it.
 */
function maxPagesReached(count: number, total: number | undefined, spec: PaginateSpec): string {
  const read = total !== undefined && total > count ? `${count} of ${total} items` : `${count} items`;
  const size = spec.perPageParam ? `larger pages ('${spec.perPageParam}')` : "larger pages";
  return `read ${read} in ${spec.maxPages} pages, the most one call reads (maxPages). For the rest ask for ${size} or filter the list; or tell the user the plugin's paginate.maxPages can be raised.`;
}

function shortFirstPage(count: number, perPage: number, page: number): string {
  return `page ${page} held ${count} items, fewer than the ${perPage} asked for, so it was probably the last`;
}

function withQuery(request: OutgoingRequest, name: string, value: string): OutgoingRequest {
  const url = new URL(request.url);
  url.searchParams.set(name, value);
  return { ...request, url };
}
