import { valueAt } from "../shared/json-path.js";
import type { PaginateSpec } from "./spec.js";

/**
 * Whether a page-numbered listing (`paginate.style: "page"`) has reached its last page. This rule
 * must never call a list complete that is not. Services cap the page size (`per_page` at most 20,
 * asked for 50), so a page shorter than the `perPage` asked for is not proof of the end. A page
 * is the last when:
 *   - it is empty;
 *   - the service says so, where the manifest names its sign: `hasMorePath` (`has_more: false`,
 *     `next: null`) or `totalPath` (that many items read);
 *   - it is shorter than a page read before it in the same call. The service's own page size is
 *     then known, and this page fell short of it.
 * A first page shorter than `perPage`, with no sign, may be the whole list or the service's cap.
 * The next page is read to find out ("check"). That costs at most one request more than trusting
 * the short page. If that page is empty, the list is complete. If it holds items, the cap is
 * known and reading goes on. A check the service refuses (404 for a page past the end) or answers
 * with the same page again leaves the end unconfirmed (pagination.ts says so in the result).
 */

export type PageEnd = "last" | "more" | "check";

export interface PageSeen {
  /** This page's items. */
  found: readonly unknown[];
  /** This page's decoded body, where the service's sign is read. */
  body: unknown;
  /** The most items a page read before this one in the same call held (0 for the first page). */
  longestBefore: number;
  /** Items read in this call, this page's included. */
  itemsRead: number;
  /** False when the caller asked for a later page: a total then cannot be compared with the items read. */
  fromFirstPage: boolean;
  /** The page size asked for (NaN when none was). */
  perPage: number;
}

export function pageEnd(page: PageSeen, spec: PaginateSpec): PageEnd {
  if (page.found.length === 0) return "last";
  const said = serviceSaysMore(page, spec);
  if (said !== undefined) return said ? "more" : "last";
  if (page.found.length < page.longestBefore) return "last";
  return Number.isFinite(page.perPage) && page.found.length < page.perPage && page.longestBefore === 0 ? "check" : "more";
}

/** The service's own sign, where the manifest names one and the page carries it; undefined otherwise. */
function serviceSaysMore(page: PageSeen, spec: PaginateSpec): boolean | undefined {
  if (spec.hasMorePath !== undefined) {
    const sign = valueAt(page.body, spec.hasMorePath);
    if (sign === false || sign === null || sign === "" || sign === 0) return false;
    if (sign !== undefined) return true;
  }
  if (page.fromFirstPage) {
    const count = totalOf(page.body, spec);
    if (count !== undefined) return page.itemsRead < count;
  }
  return undefined;
}

/** The count of all items a page's body says, where the manifest names `totalPath` and the page carries a count there. */
export function totalOf(body: unknown, spec: PaginateSpec): number | undefined {
  if (spec.totalPath === undefined) return undefined;
  const total = valueAt(body, spec.totalPath);
  // A total past 2^53 arrives as a string of its digits (parseJsonLossless).
  const count = typeof total === "number" ? total : typeof total === "string" && /^\d+$/.test(total) ? Number(total) : NaN;
  return Number.isFinite(count) ? count : undefined;
}
