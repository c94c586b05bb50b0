import { inputResponse } from "@modelcontextprotocol/server";

/**
 * The check of a 2026-07-28 client's `inputResponses` against the questions of the round it
 * answers, worded once for both kinds of round the facade asks: a held call's downstream questions
 * (held-calls.ts) and the facade's own confirmation of a write (confirm-rounds.ts).
 *
 * Why: an answer of the wrong shape is otherwise read as no answer, and the same question is asked
 * again, round after round, with nothing telling the client what it sent wrong. The SDK sets aside
 * an entry that is not a bare answer object (the `{method, result}` wrapper some clients send, or
 * a value that is no object) and keeps only its key (`droppedInputResponseKeys`): the check names
 * that too, instead of saying no answer was sent.
 */

/** One question of a round: what kind of answer it takes, and (when more precise than the kind's) the answer expected, in words. */
export interface AskedQuestion {
  kind: "elicit" | "sample";
  shape?: string;
}

const METHOD = { elicit: "elicitation/create", sample: "sampling/createMessage" } as const;
const SHAPE = {
  elicit: 'an object {"action": "accept" | "decline" | "cancel", "content"?: {...}}',
  sample: 'the message the model wrote ({"role", "content", "model"})',
} as const;

/** An answer that is not the shape its question takes, said short: its type, or an object's action. */
function describeAnswer(entry: unknown): string {
  if (entry === null || typeof entry !== "object") return entry === null ? "null" : typeof entry;
  if (Array.isArray(entry)) return "an array";
  const action = (entry as Record<string, unknown>).action;
  if (action === undefined) return "an object without 'action'";
  const said = JSON.stringify(action) ?? typeof action;
  return `action ${said.length > 40 ? `${said.slice(0, 40)}…` : said}`;
}

/**
 * What is wrong with `responses` as the answers to `asked`, in words the client can act on;
 * undefined when each question has an answer of its kind and nothing else is there. `dropped`
 * are the keys whose entries the SDK set aside as not bare answers.
 */
export function answersProblem(responses: unknown, asked: ReadonlyMap<string, AskedQuestion>, dropped: readonly string[] = []): string | undefined {
  if (asked.size === 0) return undefined;
  const names = [...asked.keys()].map((key) => `'${key}'`).join(", ");
  if (dropped.length === 0 && (!responses || typeof responses !== "object" || Array.isArray(responses))) {
    return `inputResponses must be an object with an answer under each key the question round asked (${names}); got ${responses === undefined ? "none" : Array.isArray(responses) ? "an array" : typeof responses}`;
  }
  const sent = responses && typeof responses === "object" ? (responses as Record<string, unknown>) : {};
  const stray = [...Object.keys(sent), ...dropped].filter((key) => !asked.has(key));
  if (stray.length) return `inputResponses has ${stray.map((key) => `'${key}'`).join(", ")}, which this round did not ask; it asked ${names}: answer under those keys`;
  for (const [key, question] of asked) {
    const shape = question.shape ?? SHAPE[question.kind];
    const entry = sent[key];
    if (entry === undefined && dropped.includes(key)) {
      return `inputResponses.${key} is not the answer itself: an entry wrapped as {"method", "result"} (or one that is no object) is set aside unread. Send the bare answer there: ${shape}`;
    }
    if (entry === undefined) return `inputResponses has no answer (an object) under '${key}' (this round asked ${names}): answer every question of the round`;
    const view = inputResponse(sent, key);
    if ((question.kind === "elicit" && view.kind !== "elicit") || (question.kind === "sample" && view.kind !== "sampling")) {
      return `inputResponses.${key} answers ${question.kind === "elicit" ? "an" : "a"} ${METHOD[question.kind]} question, so it must be ${shape}; got ${describeAnswer(entry)}`;
    }
  }
  return undefined;
}
