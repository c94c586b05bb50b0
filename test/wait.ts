/**
 * Waiting in tests for something that is expected to happen. The suite runs on two cores shared
 * with other work, where a child process's start, a timer or a disk read can lag by seconds, so
 * the bound is generous: a check that holds returns at once, and only a failing test pays for it.
 * (A "not yet" check — that something has NOT happened while the state holds until the test
 * acts — is a different thing and may stay short.)
 */

/** The bound of an "it happened" wait, when the test names none. */
export const WAIT_MS = 30_000;

/** Poll `check` until it holds; throw naming `what` once `ms` have passed without it. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS, everyMs = 25): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Like `until`, but answers whether `check` came to hold instead of throwing (for `assert.ok(...)`). */
export async function holdsWithin(check: () => boolean, ms = WAIT_MS, everyMs = 25): Promise<boolean> {
  try {
    await until(check, "", ms, everyMs);
    return true;
  } catch {
    return check();
  }
}

/** Poll `probe` until it gives a value (anything but undefined) and return it; throw naming `what` once `ms` have passed without one. */
export async function untilValue<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = WAIT_MS, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
