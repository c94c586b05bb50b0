import { HttpOptionsError } from "./options.js";

/**
 * Why a listener could not open its port, as one sentence an operator can act on, naming the
 * settings that chose the port and the host. Shared by the HTTP port and the metrics port of its
 * own (`team.metrics`): both fail the same ways (the port taken, a privileged port, a host that is
 * not this machine's), and a raw `listen EADDRINUSE` stack says neither which listener nor which
 * setting to change.
 */

export interface ListenPlace {
  port: number;
  host: string;
  /** Where the port comes from, as the operator writes it: "--port PORT or AGENT_TOOLS_HTTP_PORT". */
  portSetting: string;
  /** Where the host comes from: "--host or AGENT_TOOLS_HTTP_HOST". */
  hostSetting: string;
  /** What listens there, for "already in use (…?)": "another agent-tools-mcp-http". */
  usual?: string;
}

/** The operator's error for a failed listen, or undefined for an error that is not about the port or host (thrown as it is). */
export function listenProblem(error: unknown, where: ListenPlace): HttpOptionsError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EADDRINUSE":
      return new HttpOptionsError(`port ${where.port} on ${where.host} is already in use${where.usual ? ` (${where.usual}?)` : ""}; stop what holds it, or pick another with ${where.portSetting} (0 picks a free one)`);
    case "EACCES":
      return new HttpOptionsError(`no permission to listen on port ${where.port} of ${where.host}; use a port above 1023 with ${where.portSetting}`);
    case "EADDRNOTAVAIL":
      return new HttpOptionsError(`cannot listen on ${where.host}: it is not an address of this machine; set ${where.hostSetting} to one of its addresses, e.g. 127.0.0.1`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new HttpOptionsError(`cannot listen on '${where.host}': no address of this machine has that name (${code}); set ${where.hostSetting} to one of its addresses, e.g. 127.0.0.1`);
    default:
      return undefined;
  }
}
