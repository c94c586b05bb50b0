import { isPlainObject } from "../plain-object.js";

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
 * call keeps it: a neutral next step (a search hit, a discover entry) never carries one.
 */
export function confirmOf(args: unknown): { confirm?: unknown } {
  return isPlainObject(args) && args.confirm !== undefined && args.confirm !== null ? { confirm: args.confirm } : {};
}
