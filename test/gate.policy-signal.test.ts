import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { Cancel, withCancellation } from "../src/cancel.js";
import { silentLogger } from "../src/log.js";
import type { GateRequest } from "../src/runtime/gate.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { ROOT } from "./helpers.js";

// An embedder's access policy (RuntimeOptions.accessPolicies) gets the call's cancellation as an
// AbortSignal, whichever form the caller had it in (the facade's fast lane carries a Cancel).

const NOTES = path.join(ROOT, "test", "fixtures", "plugins", "agent-tools-plugin-notes");

describe("an access policy reads request.signal", () => {
  it("is an AbortSignal that follows the caller's cancellation, given as a signal or as a Cancel", async () => {
    const seen: Array<GateRequest["signal"]> = [];
    const runtime = await createRuntime({ pluginDirs: [NOTES], log: silentLogger, env: {}, accessPolicies: [(request) => void seen.push(request.signal)] });
    try {
      const session = runtime.createSession("policy-signal");
      const args = { toolName: "get_note", arguments: { id: "n1" } };
      const controller = new AbortController();
      const viaSignal = await runtime.call(session, "notes", args, { signal: controller.signal });
      assert.equal(viaSignal.isError, false, JSON.stringify(viaSignal));
      assert.equal(seen[0], controller.signal, "the caller's own AbortSignal");

      const cancel = new Cancel();
      // As the fast lane passes it: the Cancel, its AbortSignal made only when read.
      const viaCancel = await runtime.call(session, "notes", args, withCancellation({}, cancel));
      assert.equal(viaCancel.isError, false, JSON.stringify(viaCancel));
      const signal = seen[1];
      assert.ok(signal instanceof AbortSignal, `an AbortSignal, not ${String(signal)}`);
      assert.equal(signal.aborted, false);
      cancel.abort(new Error("stop"));
      assert.equal(signal.aborted, true, "it follows the Cancel");
    } finally {
      await runtime.close();
    }
  });
});
