import type { ErrorPayload } from "../errors.js";
import type { MediaItem } from "./binary-content.js";
import type { Truncation } from "./result.js";

/**
 * What the runtime's operations answer, as types: one interface per kind of answer and a
 * discriminated union over them. The facade and the text layer render these; nothing below them
 * builds an untyped payload.
 */

/**
 * The exact next call, neutral of any front end: which plugin, which tool or skill, and the
 * required arguments with placeholders ("<string>"). It never carries `confirm`: a write says
 * `confirmNeeded` and the front end says why, so the human decision stays with the human.
 * Front ends render it (`OperationContext.present`); the runtime knows no facade tool names.
 */
export interface NextStep {
  plugin: string;
  toolName?: string;
  skill?: string;
  /** Typed placeholders ("<string>") for a neutral step; the caller's own arguments for a redirect of its call. */
  arguments: Record<string, unknown>;
  /**
   * Only on a redirect of the same call (a name sent to the wrong facade tool): the top-level
   * `confirm` the caller sent, kept at the top level of the call to make. A neutral next step
   * (a search hit, a discover entry, a suggestion) never has one.
   */
  confirm?: unknown;
}

/** One tool or skill in a discover or search answer. `next` is what the front end made of a NextStep. */
export interface CatalogEntry {
  plugin?: string;
  /** Present for skills only: a tool is the default. */
  kind?: "skill";
  name: string;
  description: string;
  /** Parameter names, `*` = required (discover), or only the optional ones (search). */
  params?: string;
  optional?: string;
  /** The tool changes data: a call needs the human's confirmation. */
  writes?: true;
  next?: unknown;
  inputSchema?: Record<string, unknown>;
  args?: Record<string, unknown>;
  /** A skill's related links (targets, with reasons in its own plugin's answers). */
  related?: unknown[];
  /** The plugin is not configured: what is missing (its catalog is known from the manifest). */
  notConfigured?: string;
}

export interface CallAnswer {
  ok: true;
  plugin: string;
  toolName: string;
  result: unknown;
  truncated?: Truncation;
  /** What the runtime noticed about the result and passed it on anyway (an output that does not match the tool's own outputSchema). */
  warnings?: string[];
  repairs?: string[];
}

export interface SkillAnswer {
  ok: true;
  plugin: string;
  skill: string;
  result: unknown;
  truncated?: Truncation;
  warnings?: string[];
  repairs?: string[];
}

export interface DiscoverAnswer {
  ok: true;
  plugin: string;
  query?: string;
  shown: number;
  total: number;
  totals?: { tools: number; skills: number };
  matches: CatalogEntry[];
  /** The call for the first match, ready to send (the others follow the same pattern). */
  next?: unknown;
  more?: string;
  note?: string;
  /** Why the plugin's tools could not be listed (one line): the answer holds only its skills. */
  unavailable?: string;
  confirm?: string;
  context?: unknown;
  contextError?: string;
  /** The plugin's whole discoverHint, in a session's first discover of it. */
  hint?: string;
  repairs?: string[];
}

export interface SearchAnswer {
  ok: true;
  shown: number;
  total: number;
  hits: CatalogEntry[];
  /** Prefix → what that server is, for the servers the hits come from (#19). */
  servers?: Record<string, string>;
  more?: string;
  note?: string;
  unavailable?: Record<string, string>;
  notConfigured?: string[];
  /** Prefix → what to set and the names that matched, for plugins that are not configured (their matches are never hits). */
  setup?: Record<string, string>;
  /** Said once per runtime: how ranking works when it is not the usual way. */
  notice?: string;
  repairs?: string[];
}

export interface DescribeAnswer {
  ok: true;
  plugin: string;
  tool: { name: string; description: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> };
  /** Whether a call of it needs confirmation. */
  confirm: boolean;
  repairs?: string[];
}

export interface ErrorAnswer {
  ok: false;
  plugin?: string;
  target?: string;
  error: ErrorPayload;
  repairs?: string[];
}

export type OperationResult =
  | { kind: "call"; isError: false; payload: CallAnswer; media?: readonly MediaItem[] }
  | { kind: "skill"; isError: false; payload: SkillAnswer; media?: readonly MediaItem[] }
  | { kind: "discover"; isError: false; payload: DiscoverAnswer }
  | { kind: "search"; isError: false; payload: SearchAnswer }
  | { kind: "describe"; isError: false; payload: DescribeAnswer }
  | { kind: "error"; isError: true; payload: ErrorAnswer };

export type SuccessKind = Exclude<OperationResult["kind"], "error">;
