/** Whether an environment switch says "off" (`off`, `0`, `false`, `no`, any case, spaces ignored). */
export function isOffValue(value: string | undefined): boolean {
  const word = value?.trim().toLowerCase();
  return word === "off" || word === "0" || word === "false" || word === "no";
}

/**
 * A wait set in the environment: milliseconds (0 or more), or `forever` (also `ready`,
 * `Infinity`, any case) for no limit. Unset or blank: undefined. Anything else is said through
 * `warn`, naming the variable and what it takes, and ignored (undefined), so the default applies.
 */
export function waitFromEnv(name: string, value: string | undefined, warn: (message: string) => void): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^(forever|ready|infinity)$/i.test(text)) return Number.POSITIVE_INFINITY;
  const ms = Number(text);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  warn(`${name}='${text}' is not a number of milliseconds (0 or more) or 'forever'; using the default`);
  return undefined;
}
