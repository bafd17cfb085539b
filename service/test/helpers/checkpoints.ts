/**
 * The fixture checkpoints (random weights: they prove mechanics, not answer quality), built once per
 * machine into service/.cache/fixtures and shared by every test file.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../src/config.js';
import { Engine } from '../../src/engine/engine.js';
import { ensureFixtures } from '../../src/fixtures/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES_DIR = path.resolve(here, '../../.cache/fixtures');

let built: Promise<unknown> | undefined;

/** One shared-weights cache for every test's engine and server (each copy is made once, then reused). */
export const SHARED_WEIGHTS_CACHE = path.resolve(here, '../../.cache/ort-cache');

export async function fixtureModels(): Promise<string> {
  built ??= ensureFixtures(FIXTURES_DIR, { en: 'core-0.3.20', multilingual: 'core-multilingual-0.3.20' });
  await built;
  return FIXTURES_DIR;
}

/** A Config whose checkpoints are the fixtures; `env` overrides anything else. */
export async function testConfig(env: Record<string, string> = {}): Promise<Config> {
  const models = await fixtureModels();
  return loadConfig({
    STRUCTQA_DATA_DIR: path.resolve(here, '../../.cache/data-unused'),
    STRUCTQA_SHARED_WEIGHTS_DIR: SHARED_WEIGHTS_CACHE,
    STRUCTQA_MODELS_DIR: models,
    STRUCTQA_ENGLISH_DIR: 'fixture-en',
    STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual',
    STRUCTQA_BUILD_FIXTURES: '0',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
}

/** An engine (not started) serving one checkpoint folder under `name`, on one thread. */
export function engineServing(name: string, dir: string, opts: { int8?: boolean; maxQueuedRows?: number } = {}): Engine {
  return new Engine({
    checkpoints: { [name]: { dir, int8: opts.int8 ?? false } },
    threads: 1,
    batcher: { tokenBudget: 8192, maxRows: 64, maxQueuedRows: opts.maxQueuedRows ?? 1024, overloadedRetryMs: 1000 },
    startingRetryMs: 1000,
  });
}
