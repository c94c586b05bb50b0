import type { OutgoingRequest, RestClient, RestResponse } from "./client.js";
import { valueAt } from "../shared/json-path.js";
import type { PaginateSpec } from "./spec.js";
import { UrlGuardError } from "./errors.js";
import { pageKeyed } from "./idempotency.js";
import { resolveServerUrl, type BaseUrl } from "./url-guard.js";

/**
 * Pagination, per tool. `link` follows `Link: <…>; rel="next"` (each next URL must stay under the
 * base URL); `page` increments a page-number query parameter and stops at a short or empty page.
 * Either stops after `maxPages`. A write's page requests each carry their own Idempotency-Key
 * (idempotency.ts pageKeyed). The result says honestly whether it is complete:
 *   { items, pages, complete: true }
 *   { items, pages, complete: false, stoppedBecause: "maxPages" | "notAnArray" }
 *   { items, pages, complete: false, stoppedBecause: "nextLinkRefused", stoppedDetail }
 * A Link next URL outside the base URL (another host, a credential in it, not http) is the
 * server's doing, not the caller's: it is not followed (credentials never leave the base), and
 * the pages read so far are kept, with `stoppedDetail` saying what the header pointed at.
 */

export interface PaginatedResult {
  items: unknown[];
  pages: number;
  complete: boolean;
  stoppedBecause?: "maxPages" | "notAnArray" | "nextLinkRefused";
  /** With "nextLinkRefused": why the next page was not read, and what to do. */
  stoppedDetail?: string;
}

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
  // A write's pages each carry a key of their own (idempotency.ts pageKeyed).
  const keyed = pageKeyed(first);
  for (let pages = 1; ; pages++) {
    const response = await client.send(keyed(request, pages), signal);
    const found = pageItems(response, spec);
    if (!found) {
      // A page that is not a list cannot be concatenated: return what we have, and say so.
      if (pages === 1) return { items: [response.data], pages, complete: false, stoppedBecause: "notAnArray" };
      return { items, pages, complete: false, stoppedBecause: "notAnArray" };
    }
    items.push(...found);
    let next: OutgoingRequest | undefined;
    if (spec.style === "link") {
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
      const short = found.length === 0 || (Number.isFinite(perPage) && found.length < perPage);
      if (!short) {
        pageNumber += 1;
        next = withQuery(request, spec.param, String(pageNumber));
      }
    }
    if (!next) return { items, pages, complete: true };
    if (pages >= spec.maxPages) return { items, pages, complete: false, stoppedBecause: "maxPages" };
    request = next;
  }
}

function withQuery(request: OutgoingRequest, name: string, value: string): OutgoingRequest {
  const url = new URL(request.url);
  url.searchParams.set(name, value);
  return { ...request, url };
}
