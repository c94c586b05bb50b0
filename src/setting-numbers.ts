import { pastTimerLimit } from "./positive-int.js";

/**
 * How the number settings read from the environment are parsed, shared by each reader and by the
 * start check (config/env-settings.ts), so the check cannot accept a value its reader refuses.
 * Each takes the trimmed text and gives the number, or undefined for anything else (the reader
 * picks its default or says so). positive-int.ts's positiveInt is the third kind.
 */

/** Digits only ("1e3", "1.5", "-1", "0x10" refused): a whole number, 0 or more. */
export function wholeNumber(text: string): number | undefined {
  const value = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(value) ? value : undefined;
}

/** Any finite number, 0 or more, as Number() reads it ("1.5", "1e3"); not blank. */
export function zeroOrMore(text: string): number | undefined {
  if (!text.trim()) return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** wholeNumber for milliseconds a timer waits: no more than it can (positive-int.ts MAX_TIMER_MS). */
export function wholeMs(text: string): number | undefined {
  const value = wholeNumber(text);
  return value !== undefined && !pastTimerLimit(value) ? value : undefined;
}

/** zeroOrMore for milliseconds a timer waits: no more than it can (positive-int.ts MAX_TIMER_MS). */
export function zeroOrMoreMs(text: string): number | undefined {
  const value = zeroOrMore(text);
  return value !== undefined && !pastTimerLimit(value) ? value : undefined;
}
