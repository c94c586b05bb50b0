/** A setting read from the environment as a positive integer; undefined when unset or anything else (the caller picks the default). */
export function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
