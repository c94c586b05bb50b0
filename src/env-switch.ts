import { pastTimerLimit, TIMER_MOST } from "./positive-int.js";

const ON_WORDS = new Set(["on", "1", "true", "yes", "enabled"]);
const OFF_WORDS = new Set(["off", "0", "false", "no", "disabled"]);

/**
 * What a switch's value says: true for on (`on`, `1`, `true`, `yes`, `enabled`), false for off
 * (`off`, `0`, `false`, `no`, `disabled`), any case, spaces ignored; undefined for anything else
 * (unset and blank included). The one reading of a switch: every reader and the start check
 * (config/env-settings.ts) agree on it.
 */
export function switchWord(value: string | undefined): boolean | undefined {
  const word = value?.trim().toLowerCase() ?? "";
  return ON_WORDS.has(word) ? true : OFF_WORDS.has(word) ? false : undefined;
}

/** Whether an environment switch says "off" (`off`, `0`, `false`, `no`, `disabled`, any case, spaces ignored). */
export function isOffValue(value: string | undefined): boolean {
  return switchWord(value) === false;
}

/** Whether an environment switch says "on" (`on`, `1`, `true`, `yes`, `enabled`, any case, spaces ignored). */
export function isOnValue(value: string | undefined): boolean {
  return switchWord(value) === true;
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
  if (pastTimerLimit(ms)) {
    warn(`${name}='${text}' is more than a timer waits (${TIMER_MOST}); using the default (write forever for no limit)`);
    return undefined;
  }
  if (Number.isFinite(ms) && ms >= 0) return ms;
  warn(`${name}='${text}' is not a number of milliseconds (0 or more) or 'forever'; using the default`);
  return undefined;
}

/**
 * A switch set in the environment: true for on (`on`, `1`, `true`, `yes`, `enabled`), false for
 * off (`off`, `0`, `false`, `no`, `disabled`), any case. Unset or blank: undefined. Anything else
 * is said through `warn`, naming the variable and the words it takes, and ignored (undefined), so
 * the default applies: a typo does not silently leave a feature in a state the user did not ask for.
 */
export function switchFromEnv(name: string, value: string | undefined, warn: (message: string) => void): boolean | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const on = switchWord(text);
  if (on !== undefined) return on;
  warn(`${name}='${text}' is neither on nor off; use off (or 0, false, no) to turn it off, on to keep it on; using the default`);
  return undefined;
}
