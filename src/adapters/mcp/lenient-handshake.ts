import { Client, type Transport } from "@modelcontextprotocol/client";

/**
 * Liberal in what the adapter accepts from downstream servers: real servers (the original
 * runtime's own test server among them) answer `initialize` without `serverInfo.version`, or
 * without `serverInfo` at all, and the SDK's schema refuses the whole handshake for it. The
 * missing name or version is filled in before the SDK reads the answer; nothing else is changed,
 * and what this runtime sends stays strict.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** An initialize result (protocolVersion + capabilities) with its serverInfo completed; other messages as they are. */
export function mendInitializeResult(message: unknown, onMended?: (what: string) => void): unknown {
  if (!isRecord(message) || !isRecord(message.result)) return message;
  const result = message.result;
  if (typeof result.protocolVersion !== "string" || !isRecord(result.capabilities)) return message;
  const info = isRecord(result.serverInfo) ? result.serverInfo : {};
  const missing = [typeof info.name === "string" ? undefined : "name", typeof info.version === "string" ? undefined : "version"].filter((m): m is string => !!m);
  if (missing.length === 0) return message;
  onMended?.(`serverInfo.${missing.join(" and serverInfo.")}`);
  return { ...message, result: { ...result, serverInfo: { ...info, name: typeof info.name === "string" ? info.name : "unnamed", version: typeof info.version === "string" ? info.version : "unknown" } } };
}

/** The SDK client, with every transport it connects to read through mendInitializeResult. */
export class LenientClient extends Client {
  onMended: ((what: string) => void) | undefined;

  override async connect(transport: Transport, options?: Parameters<Client["connect"]>[1]): Promise<void> {
    let handler: Transport["onmessage"];
    // The SDK assigns `onmessage` before start(); an accessor on the instance sees every message first.
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      enumerable: true,
      get: () => handler,
      set: (next: Transport["onmessage"]) => {
        handler = next && ((message, extra) => next(mendInitializeResult(message, this.onMended) as Parameters<NonNullable<Transport["onmessage"]>>[0], extra));
      },
    });
    return super.connect(transport, options);
  }
}
