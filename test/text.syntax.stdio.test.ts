import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite, type Connected } from "./helpers.js";

/**
 * A command line is parsed as the user wrote it: syntax errors name the user's line and column
 * (the group that keeps a stopped line's output is made on the parsed line, not by writing braces
 * around its text), and what a line defines that the next call will not have is said in `note`.
 * The built server over stdio, driven by the SDK client.
 */

interface Answer {
  exitCode: number;
  stdout: string;
  stderr: string;
  note?: string;
}

async function exec(server: Connected, command: string): Promise<Answer> {
  const { payload } = await callJson(server.client, "agent_tools_exec", { command });
  return payload as unknown as Answer;
}

describe("agent_tools_exec: the user's line as written", () => {
  const server = stdioForSuite(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });

  it("a syntax error names the user's own line and column, as plain just-bash does", async () => {
    const open = await exec(server, "if true; then echo hi");
    assert.equal(open.exitCode, 2);
    assert.match(open.stderr, /Parse error at 1:22: Expected FI, got EOF/);
    assert.doesNotMatch(open.stderr, /RBRACE|3:1/);
    const paren = await exec(server, "echo (");
    assert.equal(paren.exitCode, 2);
    assert.match(paren.stderr, /Parse error at 1:6: syntax error near unexpected token `\('/);
    const loop = await exec(server, "for x in 1 2; do echo $x");
    assert.match(loop.stderr, /Parse error at 1:25: Expected DONE, got EOF/);
  });

  it("an unterminated heredoc ends at the end of the line, and runs", async () => {
    const heredoc = await exec(server, "cat <<EOF\nhello");
    assert.equal(heredoc.exitCode, 0, heredoc.stderr);
    assert.equal(heredoc.stdout, "hello\n");
    const comment = await exec(server, "echo a # and a comment");
    assert.equal(comment.stdout, "a\n");
    const onlyComment = await exec(server, "# nothing to run");
    assert.equal(onlyComment.exitCode, 0, onlyComment.stderr);
  });

  it("a stray brace cannot close the hidden group: the line is a syntax error and nothing runs", async () => {
    await exec(server, "export KEEP=before");
    const escape = await exec(server, "echo a; } ; export KEEP=after; echo b; {");
    assert.equal(escape.exitCode, 2);
    assert.equal(escape.stdout, "");
    assert.match(escape.stderr, /syntax error/);
    const stray = await exec(server, "echo a; }");
    assert.equal(stray.exitCode, 2);
    assert.equal(stray.stdout, "");
    assert.match(stray.stderr, /^bash: syntax error: .*unexpected token `\}'/);
    const kept = await exec(server, "echo $KEEP");
    assert.equal(kept.stdout, "before\n", "a line with a syntax error changes nothing of the session");
  });

  it("arrays, functions and shell options work within the call, and the answer says they are not kept", async () => {
    const defining = await exec(server, "a=(x y z); declare -A m=([k]=v); f() { echo fn; }; set -o pipefail; echo ${a[1]} ${m[k]}; f");
    assert.equal(defining.exitCode, 0, defining.stderr);
    assert.equal(defining.stdout, "y v\nfn\n");
    assert.match(defining.note ?? "", /^not kept for the next call: the arrays a, m; the function f; the shell option set by set -o pipefail\. /);
    assert.match(defining.note ?? "", /the session keeps scalar variables, the working directory and files/);
    const next = await exec(server, 'echo "[${a[1]}][${m[k]}]"; set -o | grep pipefail');
    assert.equal(next.stdout, "[][]\npipefail        off\n", "what the note said is so");
    assert.equal(next.note, undefined, "a line that defines none of them has no note");
  });

  it("what the note suggests works: definitions kept in a file and sourced in each call", async () => {
    const saved = await exec(server, "printf '%s\\n' 'list=(one two)' 'greet() { echo \"hi $1\"; }' > defs.sh && echo saved");
    assert.equal(saved.stdout, "saved\n", saved.stderr);
    const used = await exec(server, "source defs.sh; greet ${list[1]}");
    assert.equal(used.exitCode, 0, used.stderr);
    assert.equal(used.stdout, "hi two\n");
  });

  it("a definition inside a loop or a function body is seen; one in a nested shell is not the line's", async () => {
    const nested = await exec(server, "for i in 1; do g() { :; }; read -ra parts <<< 'p q'; done; bash -c 'b=(1)'");
    assert.equal(nested.exitCode, 0, nested.stderr);
    assert.match(nested.note ?? "", /the array parts; the function g\./);
    assert.doesNotMatch(nested.note ?? "", /\bb\b/);
  });
});
