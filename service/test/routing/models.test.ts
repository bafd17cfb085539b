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
