import { readdirSync, readFileSync } from "node:fs";

/**
 * Which process groups still have a member that runs, zombies aside. A signal to a group (what
 * process-groups.ts waits with) succeeds while any member is left, zombies included: a process
 * that died after its parent is reparented to pid 1 and stays a zombie until pid 1 reaps it. In a
 * container whose pid 1 reaps late (measured: 1.4 s here) or never, the grandchild of a stopped
 * server kept its group "alive" for that long, and a shutdown waited its whole grace for a group
 * with nothing left in it. Linux only (/proc); elsewhere nothing is known and every group counts
 * as running, as before.
 */

/** How long one look at /proc serves every waiter: a look costs ~10 ms on a loaded machine. */
const LOOK_MS = 200;

let looked: { at: number; running: Set<number> | undefined } | undefined;

/** The ids of the groups with a member that is not a zombie; undefined when /proc cannot be read. */
function lookAtProc(): Set<number> | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const running = new Set<number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone since the listing
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state !== "Z" && state !== "X") running.add(Number(pgrp));
  }
  return running;
}

/**
 * False once every member left in group `pgid` is a zombie (dead, waiting to be reaped); true when
 * unknown. Only a look taken at or after `since` (when the caller began waiting) is used: an older
 * one does not know a group started after it, and would call it empty.
 */
export function groupHasRunningMember(pgid: number, since: number): boolean {
  const now = Date.now();
  if (!looked || looked.at < since || now - looked.at >= LOOK_MS) looked = { at: now, running: lookAtProc() };
  return looked.running?.has(pgid) ?? true;
}
