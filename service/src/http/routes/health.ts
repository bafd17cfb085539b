/** Liveness, readiness (every configured checkpoint loaded and warmed) and Prometheus metrics. */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import type { Metrics } from '../metrics.js';

export async function healthRoutes(app: FastifyInstance, opts: { engine: Engine; metrics: Metrics }): Promise<void> {
  const { engine, metrics } = opts;

  app.get('/livez', { schema: { summary: 'Liveness' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { summary: 'Readiness: every configured checkpoint loaded and warmed' } }, async (_req, reply) => {
    const status = engine.status;
    reply.code(engine.ready ? 200 : 503);
    return { status: engine.ready ? 'ready' : status.state, ...status };
  });

  app.get('/metrics', { schema: { summary: 'Prometheus metrics' } }, async (_req, reply) => {
    for (const [name, checkpoint] of engine.checkpoints) metrics.queueDepth.set({ checkpoint: name }, checkpoint.batcher.depth);
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
