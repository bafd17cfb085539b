/**
 * Whether each hand-written case fits the model window of the checkpoint that answers it, measured
 * exactly as the service measures (its tokenizer, its marker layout): a row longer than the window is
 * refused with 413 state_too_long and the case cannot be evaluated at all. The 1,700-character rule
 * in set-check.ts is only a proxy (JSON and non-Latin scripts cost more tokens per character).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../service/src/config.js';
import { buildHeads, tokenizeState } from '../../service/src/engine/layout.js';
import { readManifest } from '../../service/src/engine/manifest.js';
import type { Question } from '../../service/src/engine/render.js';
import { CheckpointTokenizer } from '../../service/src/engine/tokenizer.js';
import { DEFAULT_MODEL, ModelRouter } from '../../service/src/routing/models.js';

export interface Overflow {
  id: string;
  checkpoint: string;
  /** Tokens of the one-question row (head and options + state + closing separator). */
  tokens: number;
  window: number;
}

/**
 * Cases whose one-question row exceeds the window of the checkpoint `model` routes them to (the
 * service's default settings, bundled checkpoints). Throws when a routed checkpoint is only a
 * fixture (no trained checkpoint to measure with).
 */
export async function windowOverflows(cases: readonly { id: string; state: unknown; question: unknown }[], model = DEFAULT_MODEL): Promise<Overflow[]> {
  const models = loadConfig({}).models;
  const router = new ModelRouter(models);
  const loaded = new Map<string, Promise<{ tokenizer: CheckpointTokenizer; window: number }>>();
  const load = (name: string) => {
    let l = loaded.get(name);
    if (!l) {
      const dir = models.checkpoints[name]!.dir;
      const manifest = readManifest(dir);
      if (manifest.fixture) throw new Error(`${name}: ${dir} holds a fixture, not the trained checkpoint`);
      l = CheckpointTokenizer.fromFile(path.join(dir, 'tokenizer.json'), manifest).then((tokenizer) => ({ tokenizer, window: manifest.window }));
      loaded.set(name, l);
    }
    return l;
  };
  const out: Overflow[] = [];
  for (const c of cases) {
    const checkpoint = router.route(model, c.state).checkpoint;
    const { tokenizer, window } = await load(checkpoint);
    const [head] = await buildHeads(tokenizer, [c.question as Question]);
    const tokens = head!.ids.length + (await tokenizeState(tokenizer, c.state)).length + 1;
    if (tokens > window) out.push({ id: c.id, checkpoint, tokens, window });
  }
  return out;
}

export const checkpointsPresent = (): boolean =>
  Object.values(loadConfig({}).models.checkpoints).every((c) => fs.existsSync(path.join(c.dir, 'manifest.json')));
