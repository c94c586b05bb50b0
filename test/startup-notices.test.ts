import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { missingPluginDirs } from "../src/runtime/startup-notices.js";

/** The start-up notices about plugin folders, on real folders and files in a temporary folder. */

describe("startup notices: plugin folders", () => {
  const root = mkdtempSync(path.join(tmpdir(), "agent-tools-notices-"));
  const folder = path.join(root, "plugins");
  const file = path.join(root, "plugins.txt");
  const gone = path.join(root, "gone");
  mkdirSync(folder);
  writeFileSync(file, "not a folder\n");

  it("says which named folder is missing or a file, why, and how to fix it; a folder is fine", () => {
    assert.deepEqual(missingPluginDirs([folder, gone].join(path.delimiter), [file, folder], "/home/u/agent-tools.json"), [
      `AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) names ${gone}, which does not exist; no plugins were loaded from it (correct the path, or unset AGENT_TOOLS_PLUGINS_DIR / drop --plugins-dir)`,
      `plugins.dirs names ${file}, which is not a folder; no plugins were loaded from it (correct or remove it in plugins.dirs of /home/u/agent-tools.json)`,
    ]);
  });

  it("a path through a file does not exist (ENOTDIR is not 'cannot be read')", () => {
    const throughFile = path.join(file, "sub");
    assert.deepEqual(missingPluginDirs(undefined, [throughFile]), [
      `plugins.dirs names ${throughFile}, which does not exist (a part of the path is a file); no plugins were loaded from it (correct or remove it in plugins.dirs)`,
    ]);
  });

  // root reads through any permission: the case cannot happen for it.
  it("a folder that cannot be searched says 'cannot be read (EACCES)'", { skip: process.getuid?.() === 0 ? "running as root" : process.platform === "win32" ? "POSIX permissions" : false }, () => {
    const locked = path.join(root, "locked");
    mkdirSync(locked);
    chmodSync(locked, 0o000);
    try {
      const inside = path.join(locked, "plugins");
      assert.deepEqual(missingPluginDirs(undefined, [inside]), [`plugins.dirs names ${inside}, which cannot be read (EACCES); no plugins were loaded from it (correct or remove it in plugins.dirs)`]);
    } finally {
      chmodSync(locked, 0o700);
    }
  });

  it("resolves a relative AGENT_TOOLS_PLUGINS_DIR entry and skips empty ones", () => {
    const relative = path.relative(process.cwd(), gone);
    assert.deepEqual(missingPluginDirs(`${path.delimiter}${relative}${path.delimiter}`, []), [
      `AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) names ${gone}, which does not exist; no plugins were loaded from it (correct the path, or unset AGENT_TOOLS_PLUGINS_DIR / drop --plugins-dir)`,
    ]);
    assert.deepEqual(missingPluginDirs(undefined, []), []);
  });
});
