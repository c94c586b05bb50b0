/**
 * Lines added to a command line's stderr when the shell did not find a command that a model
 * plainly expected to be there: a typed facade tool's name (`agent_tools_notes_call '{…}'`), or a
 * language runtime (`python3 -c …`, `node -e …`). The shell's own line ("command not found") says
 * neither what the sandbox has instead nor how to write the call in it.
 */

/** The words the shell reported as not found, in order, each once. */
export function notFoundWords(stderr: string): string[] {
  return [...new Set([...stderr.matchAll(/(?:^|\n)bash: ([^\s:]+): command not found/g)].map((m) => m[1] as string))];
}

/**
 * just-bash's line for a command its browser build leaves out (python, python3) advises to
 * "use the Node.js bundle", which only the server's author could do: it reads as any other
 * missing command, and languageLine says what there is.
 */
export function withoutBrowserAdvice(stderr: string): string {
  return stderr.replace(/(^|\n)(bash: [^\s:]+): command not available in browser environments\.[^\n]*/g, "$1$2: command not found");
}

/** The command lines of each plugin facade tool's verb in the sandbox, for the plugin command `c`. */
const VERBS: Readonly<Record<string, (c: string) => string>> = {
  call: (c) => `\`${c} call TOOL --name value …\` or \`${c} call TOOL '{json}'\``,
  discover: (c) => `\`${c} discover WORDS\``,
  run_skill: (c) => `\`${c} skill NAME --name value …\``,
};

/**
 * For `agent_tools_<prefix>_<verb>` (and the compact mode's `agent_tools_<verb>`): the command
 * line that does the same. `commandOf`: the sandbox command of a prefix this session has, else
 * undefined (then the line is written with PLUGIN).
 */
export function typedToolLine(word: string, commandOf: (prefix: string) => string | undefined): string | undefined {
  const typed = /^agent_tools_(?:(.+)_)?(call|discover|run_skill)$/.exec(word);
  if (typed) {
    const command = (typed[1] !== undefined ? commandOf(typed[1]) : undefined) ?? "PLUGIN";
    const which = command === "PLUGIN" ? " (`list` names the plugin commands)" : "";
    const lines = VERBS[typed[2] as string]?.(command) ?? "";
    return `agent-tools: '${word}' is a tool of the MCP server, not a command of this shell: here the same is ${lines}${which}\n`;
  }
  if (/^agent_tools_(help|search|exec)$/.test(word)) {
    return `agent-tools: '${word}' is a tool of the MCP server, not a command of this shell: call it as a tool; here \`PLUGIN discover WORDS\` finds a plugin's tools and \`list\` names the plugin commands\n`;
  }
  return undefined;
}

/** Language runtimes and their package tools a model reaches for. */
const LANGUAGES = new Set(["python", "python3", "pip", "pip3", "node", "nodejs", "npm", "npx", "deno", "bun", "ruby", "perl", "php"]);

/** What the sandbox offers instead of a language runtime (just-bash's commands; `ls /usr/bin` lists them all). */
export const SANDBOX_TOOLS = "bash itself (variables, loops, functions, $(( )) arithmetic), jq, yq, awk, sed, grep, rg, sort, uniq, cut, tr, xan (CSV), sqlite3, base64, diff and the plugin commands";

export function languageLine(word: string): string | undefined {
  if (!LANGUAGES.has(word)) return undefined;
  return `agent-tools: there is no Python, Node.js or other language runtime in this sandbox; it has ${SANDBOX_TOOLS} (\`ls /usr/bin\` lists every command)\n`;
}

/** The lines for the words the shell did not find: each said once, a language's once for all. */
export function missingCommandLines(stderr: string, commandOf: (prefix: string) => string | undefined): string {
  const words = notFoundWords(stderr);
  const typed = words.map((word) => typedToolLine(word, commandOf)).filter((line): line is string => line !== undefined);
  const language = words.map(languageLine).find((line) => line !== undefined);
  return [...typed, ...(language ? [language] : [])].join("");
}
