import type { NextStep } from "./answers.js";
import { confirmKept } from "./redirect.js";
import { namesSame } from "./similarity.js";

/**
 * A name sent to the wrong facade tool: a skill's name to `_call`, a tool's to `_run_skill`, or
 * another plugin's tool or skill to this plugin. The answer says where the name is and the call
 * that reaches it; nothing is run on the agent's behalf (README "Routing": a call never reaches a
 * plugin or tool it did not name). Before this, UNKNOWN_TOOL offered this plugin's near names, or
 * none, and the agent went on guessing.
 */

/** Where a name lives: a plugin's tool or skill. */
export interface NamedTarget {
  plugin: string;
  kind: "tool" | "skill";
  name: string;
}

/** The one name among `candidates` that `sent` names, or undefined (none, or several: nothing is guessed). */
export function sameNameIn(sent: string, candidates: Iterable<string>): string | undefined {
  let found: string | undefined;
  for (const candidate of candidates) {
    if (!namesSame(sent, candidate)) continue;
    if (candidate === sent) return candidate;
    if (found !== undefined) return undefined;
    found = candidate;
  }
  return found;
}

/** What a redirect of the caller's call keeps (redirect.ts): its arguments, and the top-level `confirm` it sent. */
export interface SentCall {
  arguments: Record<string, unknown>;
  confirm?: unknown;
  /** The tool or skill name the caller sent: its `confirm` is kept only for that same name in the same plugin. */
  name?: string;
}

/**
 * The sentence that leads there: "'count' is a skill of this plugin: call agent_tools_notes_run_skill
 * with skill 'count'". `present` is the front end's rendering of a next step (it knows the facade
 * tool names, or writes a command line); without one the sentence names the kind of call. `sent`: the caller's call, whose
 * arguments the next step keeps, so that following it runs what was asked (its top-level confirm
 * only as redirect.ts's confirmKept allows). `from`: the plugin the call was sent to ("" for none).
 */
export function directionTo(target: NamedTarget, from: string, present?: (step: NextStep) => unknown, sent?: SentCall): { sentence: string; where: string; next: unknown } {
  const key = target.kind === "skill" ? "skill" : "toolName";
  const step: NextStep = { plugin: target.plugin, [key]: target.name, arguments: sent?.arguments ?? {}, ...confirmKept(sent, { plugin: from || undefined, name: sent?.name }, target) };
  const next = present ? present(step) : step;
  const where = target.plugin === from ? (target.kind === "skill" ? "a skill of this plugin" : "a tool of this plugin") : `a ${target.kind} of plugin '${target.plugin}'`;
  const place = `'${target.name}' is ${where}`;
  // A command line (agent_tools_exec's rendering): the sentence gives the line itself.
  if (typeof next === "string") return { sentence: `${place}: run \`${next}\``, where: place, next };
  if (!isPresented(next)) return { sentence: `${place}: call it as ${target.kind} '${target.name}' of plugin '${target.plugin}'`, where: place, next };
  const plugin = next.arguments.plugin !== undefined ? ` and plugin '${target.plugin}'` : "";
  return { sentence: `${place}: call ${next.tool} with ${key} '${target.name}'${plugin}`, where: place, next };
}

/**
 * The answer's words for every place a name was found (usually one): sentences joined, the next
 * calls listed. `where` is the places alone ("'x' is a tool of plugin 'p'"), for an answer whose
 * `details.next` already spells out the call, so the call is not said twice.
 */
export function directionsTo(targets: readonly NamedTarget[], from: string, present?: (step: NextStep) => unknown, sent?: SentCall): { sentence: string; where: string; next: unknown[] } {
  const found = targets.map((target) => directionTo(target, from, present, sent));
  return { sentence: found.map((f) => f.sentence).join("; or "), where: found.map((f) => f.where).join("; or "), next: found.map((f) => f.next) };
}

function isPresented(value: unknown): value is { tool: string; arguments: Record<string, unknown> } {
  return typeof value === "object" && value !== null && typeof (value as { tool?: unknown }).tool === "string" && typeof (value as { arguments?: unknown }).arguments === "object";
}
