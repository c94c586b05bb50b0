import { splitLines } from "../../text-lines.js";

/**
 * Keeps the last lines a child wrote to stderr, for error messages. Lines are masked (`mask`, the
 * fleet's redactor) before a length limit cuts them: a credential cut in two is no longer found
 * whole by a later pass, and the part left would show.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";
  constructor(
    private readonly maxLines = 40,
    private readonly maxLineLength = 2_000,
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  /** Feed a chunk; returns the complete lines it finished (masked). */
  push(chunk: Buffer | string): string[] {
    const text = this.partial + chunk.toString();
    // A flood of stderr comes through here chunk by chunk: split without a regexp (text-lines.ts).
    const parts = splitLines(text);
    // The unfinished line is masked as it grows: a credential it ends with may still be incomplete
    // (kept whole at its end), one before that is complete and masked before the cut.
    const rest = parts.pop() ?? "";
    this.partial = rest.length > this.maxLineLength ? this.mask(rest).slice(-this.maxLineLength) : rest;
    const done = parts.map((raw) => {
      const line = this.mask(raw);
      return line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
    });
    for (const line of done) {
      this.lines.push(line);
      if (this.lines.length > this.maxLines) this.lines.shift();
    }
    return done;
  }

  /** The last lines (the unfinished one included), newline-joined. */
  text(): string {
    const all = this.partial ? [...this.lines, this.mask(this.partial)] : [...this.lines];
    return all.slice(-this.maxLines).join("\n");
  }

  clear(): void {
    this.lines.length = 0;
    this.partial = "";
  }
}
