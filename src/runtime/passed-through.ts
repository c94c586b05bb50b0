/**
 * What came out of a plugin's adapter on a skill's behalf. A skill's run fails with whatever it
 * throws, and a TypeError may be its own bug (`Cannot read properties of undefined`) or the
 * adapter's failure passed on unchanged (a module adapter's raw `fetch failed`, its own error):
 * only the first is the skill's fault (errors.ts, isCodeFault). The skill's gated adapter
 * (gate.ts) marks every value its methods throw or reject with, so the run's failure path can
 * tell the two apart. Held weakly: a mark lives as long as the error it marks.
 */

const passedThrough = new WeakSet<object>();

function mark(thrown: unknown): void {
  if ((thrown !== null && typeof thrown === "object") || typeof thrown === "function") passedThrough.add(thrown as object);
}

/**
 * Runs one adapter method for a skill: what it throws, and what the promise it answers rejects
 * with, is marked as the adapter's. The answer is otherwise the method's own (a synchronous one
 * stays synchronous); a plain promise is answered as a promise that settles the same way.
 */
export function fromAdapter(run: () => unknown): unknown {
  let answer: unknown;
  try {
    answer = run();
  } catch (error) {
    mark(error);
    throw error;
  }
  // A promise carrying members of its own (ky's `.json()`) is handed over as it is, unmarked: a
  // promise settling the same way would lose them.
  if (!(answer instanceof Promise) || Reflect.ownKeys(answer).length > 0) return answer;
  return answer.then(undefined, (error: unknown) => {
    mark(error);
    throw error;
  });
}

/** Whether `error` came out of a plugin's adapter (fromAdapter), not from the skill's own code. */
export function cameFromAdapter(error: unknown): boolean {
  return (error !== null && typeof error === "object") || typeof error === "function" ? passedThrough.has(error as object) : false;
}
