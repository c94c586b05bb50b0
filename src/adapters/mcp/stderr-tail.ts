/** Keeps the last lines a child wrote to stderr, for error messages. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";
  constructor(private readonly maxLines = 40, private readonly maxLineLength = 2_000) {}

  /** Feed a chunk; returns the complete lines it finished. */
  push(chunk: Buffer | string): string[] {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = (parts.pop() ?? "").slice(-this.maxLineLength);
    const done = parts.map((line) => (line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line));
    for (const line of done) {
      this.lines.push(line);
      if (this.lines.length > this.maxLines) this.lines.shift();
    }
    return done;
  }

  /** The last lines (the unfinished one included), newline-joined. */
  text(): string {
    const all = this.partial ? [...this.lines, this.partial] : [...this.lines];
    return all.slice(-this.maxLines).join("\n");
  }

  clear(): void {
    this.lines.length = 0;
    this.partial = "";
  }
}
