/**
 * A duration said in words for a message: whole minutes from one minute up ("30 minutes",
 * "1 minute"), seconds below it ("4 seconds"), so a short limit never reads "0 minutes".
 */
export function durationText(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.round(ms / 1000));
    return `${seconds} second${seconds === 1 ? "" : "s"}`;
  }
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}
