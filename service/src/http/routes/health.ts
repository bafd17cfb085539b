/** Liveness, readiness (every configured checkpoint loaded and warmed) and Prometheus metrics. */
import type { FastifyInstance } from 'fastify';
import type { Gate } from '../../accounts/types.js';
import type { Engine } from '../../engine/engine.js';
import type { Metrics } from '../metrics.js';

export async function healthRoutes(app: FastifyInstance, opts: { engine: Engine; metrics: Metrics; gate?: Gate }): Promise<void> {
  const { engine, metrics, gate } = opts;

  app.get('/livez', { schema: { summary: 'Liveness' } }, async () => ({ status: 'ok' }));

  // Unready while the accounts storage does not answer: every call would get 503 storage_unavailable,
  // so a load balancer should send them elsewhere meanwhile.
  app.get('/readyz', { schema: { summary: 'Readiness: every configured checkpoint loaded and warmed, the accounts storage answering' } }, async (_req, reply) => {
    const status = engine.status;
    const storage = gate?.ready ? ((await gate.ready()) ? 'ok' : 'unavailable') : 'ok';
    const ready = engine.ready && storage === 'ok';
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ready' : engine.ready ? 'storage_unavailable' : status.state, ...status, storage };
  });

  app.get('/metrics', { schema: { summary: 'Prometheus metrics' } }, async (_req, reply) => {
    for (const [name, checkpoint] of engine.checkpoints) metrics.queueDepth.set({ checkpoint: name }, checkpoint.batcher.depth);
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
