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

  it("arrays and functions work within the call, and the answer says they are not kept; shell options are kept", async () => {
    const defining = await exec(server, "a=(x y z); declare -A m=([k]=v); f() { echo fn; }; set -o pipefail; echo ${a[1]} ${m[k]}; f");
    assert.equal(defining.exitCode, 0, defining.stderr);
    assert.equal(defining.stdout, "y v\nfn\n");
    assert.match(defining.note ?? "", /^not kept for the next call: the arrays a, m; the function f\. /);
    assert.doesNotMatch(defining.note ?? "", /pipefail|option set by/, "shell options carry, so the note does not name them");
    assert.match(defining.note ?? "", /the session keeps scalar variables, shell options, the working directory and files, not arrays or functions/);
    const next = await exec(server, 'echo "[${a[1]}][${m[k]}]"; set -o | grep pipefail; set +o pipefail');
    assert.equal(next.stdout, "[][]\npipefail        on\n", "what the note said is so");
    assert.equal(next.note, undefined, "a line that defines none of them has no note");
    const options = await exec(server, "set -e; shopt -s nullglob; set +e; shopt -u nullglob");
    assert.equal(options.note, undefined, "a line that only sets shell options has no note");
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

describe("agent_tools_exec: shell options carry to the next call", () => {
  const server = stdioForSuite(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });

  it("set -o pipefail holds in the next call, and set +o pipefail turns it off again", async () => {
    assert.equal((await exec(server, "set -o pipefail")).exitCode, 0);
    assert.equal((await exec(server, "false | true; echo $?")).stdout, "1\n");
    assert.equal((await exec(server, "set +o pipefail")).exitCode, 0);
    assert.equal((await exec(server, "false | true; echo $?")).stdout, "0\n");
  });

  it("set -u carries: an unset variable is an error in the next call", async () => {
    await exec(server, "set -u");
    const unset = await exec(server, 'echo "[$nowhere]"; echo after');
    assert.equal(unset.exitCode, 1);
    assert.equal(unset.stdout, "");
    assert.match(unset.stderr, /nowhere: unbound variable/);
    await exec(server, "set +u");
    assert.equal((await exec(server, 'echo "[$nowhere]"')).stdout, "[]\n");
  });

  it("shopt -s nullglob carries, and shopt -u ends it", async () => {
    await exec(server, "shopt -s nullglob");
    assert.equal((await exec(server, "echo [no-such-file*]; echo end")).stdout, "\nend\n");
    await exec(server, "shopt -u nullglob");
    assert.equal((await exec(server, "echo no-such-file*")).stdout, "no-such-file*\n");
  });

  it("set -x carries without tracing the restoring statements; SHELLOPTS stays readonly", async () => {
    await exec(server, "set -x");
    const traced = await exec(server, "echo hi");
    assert.equal(traced.stderr, "+ echo hi\n", "only the line's own commands are traced");
    await exec(server, "set +x");
    const shown = await exec(server, "set -o errexit; echo $SHELLOPTS");
    assert.match(shown.stdout, /errexit/);
    const next = await exec(server, "echo $SHELLOPTS; set +o errexit");
    assert.match(next.stdout, /errexit/, "SHELLOPTS shows the carried options");
    assert.equal((await exec(server, "false; echo went-on")).stdout, "went-on\n", "errexit was turned off");
    const assigned = await exec(server, "SHELLOPTS=x");
    assert.match(assigned.stderr, /SHELLOPTS: readonly variable/);
    assert.doesNotMatch((await exec(server, "echo $SHELLOPTS")).stdout, /^x$/m);
  });

  it("a line with a syntax error changes no option", async () => {
    await exec(server, "set -o pipefail");
    assert.equal((await exec(server, "set +o pipefail; echo a; }")).exitCode, 2);
    assert.equal((await exec(server, "false | true; echo $?; set +o pipefail")).stdout, "1\n");
  });

  it("an alias named shopt or set from an earlier line does not take over the restore at the start of later calls", async () => {
    await exec(server, "shopt -s expand_aliases nullglob; set -o pipefail; alias shopt='exit 3'; alias set='notes call create_note --title planted --body x --confirm >/dev/null 2>&1; builtin set'");
    const later = await exec(server, "echo still-here; false | true; echo $?");
    assert.equal(later.exitCode, 0, later.stderr);
    assert.equal(later.stdout, "still-here\n1\n", "the line runs, with the carried pipefail");
    const notes = await exec(server, "notes call list_notes | jq -c '[.result.notes[].title]'");
    assert.doesNotMatch(notes.stdout, /planted/, "no write ran ahead of the lines");
    await exec(server, "unalias shopt set; shopt -u expand_aliases nullglob; set +o pipefail");
  });
});

describe("agent_tools_exec: a line stopped at its deadline leaves the shell options as they were", () => {
  const server = stdioForSuite(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "1500" });

  it("shopt options it set are gone in the next call, though just-bash keeps them in the shell", async () => {
    const stopped = await exec(server, "shopt -s nullglob failglob; set -o pipefail; sleep 5; echo done");
    assert.equal(stopped.exitCode, 124, stopped.stderr);
    const next = await exec(server, "echo /nonexist*; false | true; echo $?");
    assert.equal(next.exitCode, 0, next.stderr);
    assert.equal(next.stdout, "/nonexist*\n0\n", "no nullglob, no failglob, no pipefail");
  });
});

describe("agent_tools_exec: a carried set -e says so when it ends a line", () => {
  const server = stdioForSuite(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });

  it("a later line that stops at a failing command gets a note naming set -e; one that succeeds, or that sets -e itself, does not", async () => {
    const own = await exec(server, "set -e; false; echo after");
    assert.equal(own.exitCode, 1);
    assert.equal(own.note, undefined, "the line's own set -e is in its text");
    const later = await exec(server, "false; echo AFTER-FALSE");
    assert.equal(later.exitCode, 1);
    assert.equal(later.stdout, "");
    assert.match(later.note ?? "", /set -e from an earlier call is on: the line stopped at its first failing command; `set \+e` turns it off/);
    const fine = await exec(server, "echo ok");
    assert.equal(fine.note, undefined);
    await exec(server, "set +e");
    const off = await exec(server, "false; echo AFTER-FALSE");
    assert.equal(off.stdout, "AFTER-FALSE\n");
    assert.equal(off.note, undefined);
  });
});
