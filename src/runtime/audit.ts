import { nodeCrypto } from "../node-crypto.js";
import type { Logger } from "../adapters/types.js";
import type { CallEvent, CallObserver, ObserverNote } from "./observer.js";
import type { AuditLog } from "../state/types.js";
import { LOCAL_IDENTITY } from "../config/team.js";

/**
 * The audit observer: every operation that changes data (or tried to: refused by the gate, the
 * policy or the backend) becomes one audit entry, written before the answer goes out, so every
 * acknowledged write is in the log. Arguments keep their shape (keys, array lengths, types) and
 * lose their values: an audit log must not become a second copy of the data, nor of secrets.
 */

const MAX_DEPTH = 4;
const MAX_KEYS = 50;

function redactArguments(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return depth >= MAX_DEPTH ? `<array of ${value.length}>` : value.slice(0, 5).map((item) => redactArguments(item, depth + 1)).concat(value.length > 5 ? [`<${value.length - 5} more>`] : []);
  if (typeof value === "object") {
    if (depth >= MAX_DEPTH) return "<object>";
    const out: Record<string, unknown> = {};
    const keys = Object.keys(value);
    for (const key of keys.slice(0, MAX_KEYS)) out[key] = redactArguments((value as Record<string, unknown>)[key], depth + 1);
    if (keys.length > MAX_KEYS) out["<more keys>"] = keys.length - MAX_KEYS;
    return out;
  }
  if (typeof value === "string") return `<string ${value.length}>`;
  return `<${typeof value}>`;
}

export function createAuditObserver(options: { audit: AuditLog; instanceId: string; log: Logger; counted?: (outcome: "written" | "failed") => void }): CallObserver {
  const observe = async (event: CallEvent): Promise<ObserverNote | undefined> => {
    if (!event.mutating) return undefined;
    const entry = {
      id: nodeCrypto().randomUUID(),
      at: new Date(event.startedAt).toISOString(),
      identity: event.session.identity?.name ?? LOCAL_IDENTITY,
      session: event.session.id,
      instance: options.instanceId,
      operation: event.operation,
      plugin: event.plugin,
      ...(event.target ? { tool: event.target } : {}),
      outcome: event.outcome,
      ...(event.confirmedBy ? { confirmedBy: event.confirmedBy } : {}),
      durationMs: event.durationMs,
      ...(event.arguments !== undefined ? { arguments: redactArguments(event.arguments) } : {}),
    };
    // One retry: a Redis failover or a full disk for a moment must not drop a write's record.
    for (let attempt = 1; ; attempt++) {
      try {
        await options.audit.append(entry);
        options.counted?.("written");
        return undefined;
      } catch (error) {
        if (attempt >= 2) {
          options.counted?.("failed");
          const reason = (error as Error).message;
          options.log.error(`audit: could not record ${entry.operation} ${entry.plugin}/${entry.tool ?? "?"} by ${entry.identity} (${options.audit.where}): ${reason}`);
          // Done (or refused) but not in the log: the answer says so, so an answer without this note is always audited.
          const what = entry.outcome === "ok" ? "change was made" : "attempt was answered";
          return { unaudited: `this ${what} but is not in the gateway's audit log, which could not be written (${reason}); tell the user, so the gateway's operator can record it and repair the log` };
        }
      }
    }
  };
  // Only writes are audited: the pipeline builds no event for the rest (observer.ts).
  return Object.assign(observe, { mutatingOnly: true });
}
