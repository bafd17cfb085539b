/** A caller that hangs up is not run and not charged: its rows are dropped from the queue. */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A signal that fires when the caller goes before its response is written; `dispose()` once answered. */
export function callerGone(request: FastifyRequest, reply: FastifyReply): { signal: AbortSignal; dispose(): void } {
  const gone = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) gone.abort();
  };
  reply.raw.once('close', onClose);
  if (request.raw.socket?.destroyed) gone.abort();
  return { signal: gone.signal, dispose: () => reply.raw.off('close', onClose) };
}
