/**
 * The writes (calls of tools that change data) one command line sent to plugins, so that a line
 * stopped at its deadline or by the client's cancel can say which of them were still running and
 * which had answered: either may have changed data, and a blind re-run would make them twice.
 */
export class WriteLog {
  /** Tools running now, with how many calls of each. */
  private readonly running = new Map<string, number>();
  private readonly answeredTools = new Set<string>();

  /**
   * A write to `tool` was sent; the returned function marks it answered (or failed). A call the
   * line's stop cut off is left running: its backend may still make the change.
   */
  start(tool: string): (cutOff?: boolean) => void {
    this.running.set(tool, (this.running.get(tool) ?? 0) + 1);
    let ended = false;
    return (cutOff = false) => {
      if (ended || cutOff) return;
      ended = true;
      const left = (this.running.get(tool) ?? 1) - 1;
      if (left > 0) this.running.set(tool, left);
      else this.running.delete(tool);
      this.answeredTools.add(tool);
    };
  }

  /** The writes still running, each tool once. */
  get inFlight(): string[] {
    return [...this.running.keys()];
  }

  /** The writes that answered (each tool once), not counting those of a tool still running. */
  get answered(): string[] {
    return [...this.answeredTools].filter((tool) => !this.running.has(tool));
  }
}
