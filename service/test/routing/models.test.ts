import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGLISH_CHECKPOINT, loadConfig, MULTILINGUAL_CHECKPOINT } from '../../src/config.js';
import { UnknownModel } from '../../src/errors.js';
import { ModelRouter } from '../../src/routing/models.js';

const router = new ModelRouter(loadConfig({ STRUCTQA_DATA_DIR: '/tmp/structqa-unused' }).models);

test('checkpoint names and aliases select a checkpoint directly', () => {
  assert.equal(router.route(ENGLISH_CHECKPOINT, 'Bonjour tout le monde, ceci est un texte français.').checkpoint, ENGLISH_CHECKPOINT);
  assert.equal(router.route('core-multilingual', 'plain English text').checkpoint, MULTILINGUAL_CHECKPOINT);
});

test('names inherited from Object.prototype are unknown models, not checkpoints', () => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    assert.throws(() => router.route(name, 'some text'), UnknownModel, name);
  }
});

test("a named checkpoint's route detects the state's language only when it is read", () => {
  let reads = 0;
  const state = {
    get message() {
      reads++;
      return 'Bonjour tout le monde, ceci est un texte français.';
    },
  };
  const named = router.route(ENGLISH_CHECKPOINT, state);
  assert.equal(reads, 0, 'routing by name does not look at the state');
  assert.equal(named.language, 'fr');
  assert.equal(named.language, 'fr');
  assert.equal(reads, 1, 'detected once, on the first read');

  reads = 0;
  const routed = router.route('legacy-latest', state);
  assert.equal(reads, 1, 'routing by language detects at once');
  assert.equal(routed.checkpoint, MULTILINGUAL_CHECKPOINT);
  assert.equal(routed.language, 'fr');
});
