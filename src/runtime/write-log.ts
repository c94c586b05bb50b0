/**
 * One write a command line sent: a call of a tool that changes data (`fx/hang`), or a skill run
 * (`runs:archive`) with the steps that change data it sent (`runs/delete_item`). The skill is
 * named as the model ran it, since that is what it would run again.
 */
export type LoggedWrite = { kind: "tool"; name: string } | { kind: "skill"; name: string; writes: string[] };

/** A skill run as the write log follows it: entered at its first step that changes data. */
export interface LoggedSkillRun {
  /** The run sent a step that changes data (`prefix/tool`): the run is entered, or the step added to it. */
  wrote(step: string): void;
  /** The run ended; `cutOff`: the stop ended it, and what it sent may still be running (it stays in flight). */
  ended(cutOff: boolean): void;
}

interface Entry {
  running: number;
  answered: boolean;
  /** For a skill: the steps that change data its runs sent, each once. */
  writes?: Set<string>;
}

/**
 * The writes (calls of tools that change data, and skill runs that sent any) one command line
 * sent to plugins, so that a line stopped at its deadline or by the client's cancel can say which
 * of them were still running and which had answered: either may have changed data, and a blind
 * re-run would make them twice.
 */
export class WriteLog {
  private readonly entries = new Map<string, Entry>();

  /**
   * A write to `tool` was sent; the returned function marks it answered (or failed). A call the
   * line's stop cut off is left running: its backend may still make the change.
   */
  start(tool: string): (cutOff?: boolean) => void {
    return this.begin(`tool:${tool}`);
  }

  /**
   * A run of `skill` (`prefix:name`) began. It is entered only once it sends a step that changes
   * data: a run that only read changed nothing. Ended by the stop it stays running, as a tool's
   * call does: its steps may still be running, and its code cannot be killed.
   */
  skillRun(skill: string): LoggedSkillRun {
    const key = `skill:${skill}`;
    let end: ((cutOff?: boolean) => void) | undefined;
    return {
      wrote: (step) => {
        end ??= this.begin(key);
        const entry = this.entries.get(key) as Entry;
        (entry.writes ??= new Set()).add(step);
      },
      ended: (cutOff) => end?.(cutOff),
    };
  }

  /** The writes still running, each tool or skill once. */
  get inFlight(): LoggedWrite[] {
    return this.listed((entry) => entry.running > 0);
  }

  /** The writes that answered (each once), not counting those of a tool or skill still running. */
  get answered(): LoggedWrite[] {
    return this.listed((entry) => entry.answered && entry.running === 0);
  }

  private begin(key: string): (cutOff?: boolean) => void {
    const entry = this.entries.get(key) ?? { running: 0, answered: false };
    this.entries.set(key, entry);
    entry.running++;
    let ended = false;
    return (cutOff = false) => {
      if (ended || cutOff) return;
      ended = true;
      entry.running--;
      entry.answered = true;
    };
  }

  private listed(keep: (entry: Entry) => boolean): LoggedWrite[] {
    const out: LoggedWrite[] = [];
    for (const [key, entry] of this.entries) {
      if (!keep(entry)) continue;
      const at = key.indexOf(":");
      const name = key.slice(at + 1);
      out.push(key.slice(0, at) === "skill" ? { kind: "skill", name, writes: [...(entry.writes ?? [])] } : { kind: "tool", name });
    }
    return out;
  }
}
