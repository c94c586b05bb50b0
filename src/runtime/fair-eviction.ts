/**
 * Which entry of a full table (HTTP sessions, workspaces) to close to make room, fairly between
 * callers: an idle one (no call in flight) of the owner holding the most entries, so that one
 * caller opening many closes its own, never another caller's only one (and its files). Among that
 * owner's idle entries, the one `before` ranks first; with equal holdings, the entry met first.
 */
export interface FairEviction<T> {
  owner(entry: T): string;
  /** Whether closing it interrupts nothing (no call in flight). */
  idle(entry: T): boolean;
  /** Whether `a` should go before `b` (same holding); default: neither, the one met first goes. */
  before?(a: T, b: T): boolean;
  /** The owner about to open one more: counted, so a caller at its share evicts its own. */
  opening?: string;
  /**
   * What an entry weighs toward its owner's holding (default 1: holdings are counts; a memory
   * budget weighs bytes). An entry that weighs nothing frees nothing, so it is never chosen.
   */
  weight?(entry: T): number;
}

/** The entry to close, or undefined when none is idle. */
export function fairVictim<T>(entries: Iterable<T>, how: FairEviction<T>): T | undefined {
  const held = new Map<string, number>(how.opening !== undefined ? [[how.opening, 1]] : []);
  const idle: T[] = [];
  for (const entry of entries) {
    const owner = how.owner(entry);
    const weight = how.weight ? how.weight(entry) : 1;
    held.set(owner, (held.get(owner) ?? 0) + weight);
    if (weight > 0 && how.idle(entry)) idle.push(entry);
  }
  const holding = (entry: T): number => held.get(how.owner(entry)) ?? 0;
  let victim: T | undefined;
  for (const entry of idle) {
    const more = victim === undefined ? 1 : holding(entry) - holding(victim);
    if (more > 0 || (more === 0 && victim !== undefined && how.before?.(entry, victim) === true)) victim = entry;
  }
  return victim;
}
