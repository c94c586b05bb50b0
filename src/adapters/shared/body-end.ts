/**
 * `response` with a body that calls `ended` once when the body is over: read to its end, failed
 * (the connection reset, the request aborted) or cancelled by its reader. A response without a
 * body is over at once.
 *
 * Why: a fetch's answer outlives the fetch call: an SSE stream is read for minutes after the
 * headers came. What must last exactly as long as the body (a listener to detach, a stream's
 * lifetime to measure) needs its end, which a Response does not announce.
 */
export function whenBodyEnds(response: Response, ended: () => void): Response {
  let over = false;
  const end = (): void => {
    if (over) return;
    over = true;
    ended();
  };
  if (!response.body) {
    end();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        end();
        controller.close();
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel: (reason) => {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
