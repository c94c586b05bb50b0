import type { Server } from "@modelcontextprotocol/server";
import { answerFirst } from "./answer-first.js";
import { envelopeOnLegacyAnswer } from "./era-mismatch.js";

/**
 * A facade Server that serveStdio pins to a 2025-era connection refuses each request carrying the
 * 2026-07-28 envelope (era-mismatch.ts) instead of serving it. The SDK passes every message of a
 * pinned connection to its instance as it came, and the facade reads an envelope as a 2026-07-28
 * request: a write then took the input_required path on a connection that cannot carry it, and
 * the client got the SDK's raw (and false) "did not declare the required capability".
 *
 * Done where the SDK delivers to the instance, not where the wire reads: the SDK decides the era
 * only once its factory has run (the catalog cache may hold it up to a second), so a request read
 * meanwhile is already on its queue; here it is checked in the SDK's own order, against the era
 * the SDK chose. The Server's `connect` sets the channel's `onmessage`; the check is put in front
 * of it once connected (the SDK delivers nothing before `connect` resolves).
 */
export function refuseModernRequests(server: Server): void {
  answerFirst(server, envelopeOnLegacyAnswer);
}
