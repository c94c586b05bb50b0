import type { OutgoingRequest, RestClient, RestResponse } from "./client.js";
import { valueAt } from "../shared/json-path.js";
import type { PaginateSpec } from "./spec.js";
import { resolveServerUrl, type BaseUrl } from "./url-guard.js";

/**
 * Pagination, per tool. `link` follows `Link: <…>; rel="next"` (each next URL must stay under the
 * base URL); `page` increments a page-number query parameter and stops at a short or empty page.
 * Either stops after `maxPages`. The result says honestly whether it is complete:
 *   { items, pages, complete: true }
 *   { items, pages, complete: false, stoppedBecause: "maxPages" | "notAnArray" }
 */

export interface PaginatedResult {
  items: unknown[];
  pages: number;
  complete: boolean;
  stoppedBecause?: "maxPages" | "notAnArray";
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
  for (let pages = 1; ; pages++) {
    const response = await client.send(request, signal);
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
      if (target !== undefined) next = { ...request, url: resolveServerUrl(target, response.url, base, "pagination Link next URL") };
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
