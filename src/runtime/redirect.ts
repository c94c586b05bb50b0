import { isPlainObject } from "../plain-object.js";
import { namesSame } from "./similarity.js";

/**
 * The parts of a call that a redirect of the same call carries into `details.next`: a call sent
 * to the wrong place (a wrong facade name, routing.ts; a skill's name sent to `_call` or a tool's
 * to `_run_skill`, pipeline.ts) is answered with the one call to make instead, and that call keeps
 * what the caller sent, so following it runs what was asked (not a call with no arguments).
 */

/**
 * The tool's own arguments in a call: its `arguments`, else what was sent (without `plugin`, the
 * name and `confirm`). A top-level `confirm` is the call's, never the tool's: a `_call` reads it
 * there whether the rest was flattened or not (repair.ts), so `next` keeps it there (confirmOf).
 */
export function toolArgumentsOf(args: unknown): Record<string, unknown> {
  if (!isPlainObject(args)) return {};
  if (isPlainObject(args.arguments)) return args.arguments;
  const { plugin: _plugin, skill: _skill, toolName: _toolName, confirm: _confirm, ...rest } = args;
  return rest;
}

/**
 * The `confirm` sent at the top level of the call, carried as sent to the top level of `next`
 * (a `"yes"` too: the call made then says it is not honoured, as the call sent would have); one
 * inside `arguments` stays there, where it is not honoured either. Only a redirect of the same
 * call keeps it (confirmKept says when): a neutral next step (a search hit, a discover entry) never
 * carries one.
 */
export function confirmOf(args: unknown): { confirm?: unknown } {
  return isPlainObject(args) && args.confirm !== undefined && args.confirm !== null ? { confirm: args.confirm } : {};
}

/** A plugin's tool or skill by name: where the caller sent a call, or where a redirect leads it. */
export interface CallPlace {
  /** Undefined when the caller named no plugin (a bare tool name, a compact call without `plugin`). */
  plugin?: string;
  name?: string;
}

/**
 * The one rule for whether a redirect carries the caller's top-level `confirm` into `next` (both
 * routing.ts, for a wrong facade name, and misdirected.ts, for a name sent to the wrong facade
 * tool, ask here): only when `next` leads to the name sent (case and separators aside) in the
 * plugin it was sent to, as with a tool's name sent to `_run_skill` or `agent_tools_tasks_create_task`
 * sent for tasks' `_call`. Why: a confirm is the model's word that the user asked for this one
 * write of this one plugin. Carried to another plugin's tool that shares or nears the name, or to
 * the plugin a catalog lookup found for a bare name the caller sent with no plugin, following
 * `next` would run a write nobody confirmed; without it, that call asks for its own confirm.
 */
export function confirmKept(args: unknown, sentTo: CallPlace, target: { plugin: string; name: string }): { confirm?: unknown } {
  if (sentTo.plugin === undefined || sentTo.name === undefined) return {};
  return sentTo.plugin === target.plugin && namesSame(sentTo.name, target.name) ? confirmOf(args) : {};
}
