/**
 * `fn(a, b, c)` as a promise: a synchronous throw becomes a rejection, so the caller continues in
 * one `.then(onValue, onError)` instead of a try/catch around the call and a second error path.
 * The arguments are passed rather than closed over, so a hot caller makes no closure per call.
 */
export function asPromise<T>(fn: () => Promise<T>): Promise<T>;
export function asPromise<T, A>(fn: (a: A) => Promise<T>, a: A): Promise<T>;
export function asPromise<T, A, B, C>(fn: (a: A, b: B, c: C) => Promise<T>, a: A, b: B, c: C): Promise<T>;
export function asPromise<T>(fn: (a?: unknown, b?: unknown, c?: unknown) => Promise<T>, a?: unknown, b?: unknown, c?: unknown): Promise<T> {
  try {
    return fn(a, b, c);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
