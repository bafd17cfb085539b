/** GET /v1/models: every accepted name, in the earlier service's shape (reference §5). */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import type { Manifest } from '../../engine/manifest.js';
import type { ModelEntry, ModelRouter } from '../../routing/models.js';
import { ModelList } from '../../schemas/systemone.js';

/** The body of GET /v1/models (also what the MCP tool `list_models` answers). */
export function listModels(engine: Engine, router: ModelRouter): { models: ModelEntry[] } {
  const manifests = new Map<string, Manifest>();
  for (const [name, checkpoint] of engine.checkpoints) manifests.set(name, checkpoint.manifest);
  return { models: router.list(manifests) };
}

export async function modelRoutes(
  app: FastifyInstance,
  opts: { engine: Engine; router: ModelRouter },
): Promise<void> {
  app.get('/v1/models', { schema: { summary: 'List accepted model names', response: { 200: ModelList } } }, async () => listModels(opts.engine, opts.router));
}
