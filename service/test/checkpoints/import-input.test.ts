/**
 * Issue 31: `structqa models import` as an operator meets it, on copies of the Laya fixture checkpoint
 * (laya's own classes and writer, random weights):
 * - the source folder is never changed (every file's bytes, mode and mtime), and a read-only one imports;
 * - every kind of broken checkpoint ends in one line naming the file, the field or tensor, what was found
 *   and what was expected, exit status 2, no traceback, and nothing left in --out or the temporary folder;
 * - where laya loads a checkpoint with a warning (temperatures), the import applies what laya applies and
 *   says so, compared with laya's own Agent on the same folder;
 * - a Decima export given one level off is told what it is and what to pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import { modelsCli, type ModelsCli } from '../helpers/cli.js';
import { decimaExportRepo } from '../helpers/decima-export.js';
import { importPython, layaCheckpoint } from '../helpers/laya.js';

/** Every file and folder under `dir`: its bytes' sha256 (files), mode and mtime. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of ['.', ...fs.readdirSync(dir, { recursive: true }).map(String)].sort()) {
    const full = path.join(dir, rel);
    const st = fs.statSync(full);
    const hash = st.isFile() ? createHash('sha256').update(fs.readFileSync(full)).digest('hex') : 'dir';
    out[rel] = `${hash} ${st.mode.toString(8)} ${st.mtimeMs}`;
  }
  return out;
}

/** The temporary folder's entries, less onnxruntime-node's own 51-byte `.ses` marker (any ORT session in the
 * process writes it, later than the session it belongs to); its `mat-debug-<pid>.log` is kept out by verify.ts. */
function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f !== '.ses');
}

/** chattr +i (root ignores chmod; the immutable flag binds root too) where the file system has it. */
function immutable(dir: string, on: boolean): boolean {
  return spawnSync('chattr', ['-R', on ? '+i' : '-i', dir], { stdio: 'ignore' }).status === 0;
}

/** Rewrites a safetensors file: `edit` gets the header (name → {dtype, shape, data_offsets}) and the tensors' bytes by name. */
function rewriteSafetensors(file: string, edit: (header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>, data: Map<string, Buffer>) => void): void {
  const buf = fs.readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const meta = header['__metadata__'];
  delete header['__metadata__'];
  const data = new Map<string, Buffer>();
  for (const [name, t] of Object.entries(header)) data.set(name, buf.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]));
  edit(header, data);
  let offset = 0;
  const parts: Buffer[] = [];
  for (const name of Object.keys(header)) {
    const bytes = data.get(name)!;
    header[name]!.data_offsets = [offset, offset + bytes.length];
    offset += bytes.length;
    parts.push(bytes);
  }
  const json = Buffer.from(JSON.stringify(meta ? { __metadata__: meta, ...header } : header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([len, json, ...parts]));
}

describe('models import: the input untouched, broken checkpoints in one line, laya\'s warnings (issue 31)', { timeout: 30 * 60_000 }, () => {
  let tmp: string;
  let run: ModelsCli;
  let python: string;
  let fixture: string;
  const savedTmpdir = process.env['TMPDIR'];
  let tmpdir: string;

  before(() => {
    python = importPython();
    fixture = layaCheckpoint('modernbert', 'sequential');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-import-input-'));
    // the import's own temporary files must not land in the system's folder: watch a fresh one
    tmpdir = path.join(tmp, 'system-tmp');
    fs.mkdirSync(tmpdir);
    process.env['TMPDIR'] = tmpdir;
    run = modelsCli(loadConfig({ STRUCTQA_DATA_DIR: tmp, LOG_LEVEL: 'silent' }));
  });
  after(() => {
    if (savedTmpdir === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmpdir;
    immutable(tmp, false);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A copy of the fixture, changed by `mutate`. */
  const copy = (label: string, mutate: (dir: string) => void = () => {}): string => {
    const dir = path.join(tmp, label);
    fs.cpSync(fixture, dir, { recursive: true });
    mutate(dir);
    return dir;
  };
  const editJson = (file: string, edit: (v: Record<string, unknown>) => void): void => {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(v);
    fs.writeFileSync(file, JSON.stringify(v, null, 2));
  };

  /** One field of a config changed in its text, the rest as Python wrote it (a JSON round trip here turns 2.0 into 2, which transformers refuses). */
  const editField = (file: string, key: string, value: string): void => {
    const text = fs.readFileSync(file, 'utf8');
    const next = text.replace(new RegExp(`("${key}":\\s*)(\\[[^\\]]*\\]|[^,\\n}]+)`), `$1${value}`);
    assert.notEqual(next, text, `${key} in ${file}`);
    fs.writeFileSync(file, next);
  };

  it('the source folder is byte-identical after an import (bytes, modes, mtimes), and an immutable, read-only one imports', async () => {
    // the tokenizer config as laya's writer leaves it, which laya's loader then patches in place (a cached fixture
    // may already have been patched by a reference run that loaded it directly)
    const src = copy('untouched', (d) => editJson(path.join(d, 'tokenizer', 'tokenizer_config.json'), (c) => { c['tokenizer_class'] = 'TokenizersBackend'; }));
    const before = snapshot(src);
    const ok = await run('models', 'import', src, '--out', path.join(tmp, 'models-a'), '--python', python, '--check-rows', '4');
    assert.equal(ok.code, 0, ok.err);
    assert.deepEqual(snapshot(src), before, 'the import changed its input');
    // laya's loader rewrites this file where it loads from: the fixture's config is one it patches
    const config = JSON.parse(fs.readFileSync(path.join(src, 'tokenizer', 'tokenizer_config.json'), 'utf8')) as { tokenizer_class?: string };
    assert.notEqual(config.tokenizer_class, 'PreTrainedTokenizerFast', 'the fixture no longer exercises laya\'s in-place patch');

    const ro = copy('read-only', (d) => editJson(path.join(d, 'tokenizer', 'tokenizer_config.json'), (c) => { c['tokenizer_class'] = 'TokenizersBackend'; }));
    const roBefore = snapshot(ro);
    spawnSync('chmod', ['-R', 'a-w', ro]);
    const locked = immutable(ro, true);
    try {
      const imported = await run('models', 'import', ro, '--out', path.join(tmp, 'models-b'), '--python', python, '--check-rows', '4');
      assert.equal(imported.code, 0, imported.err);
      assert.equal(readManifest(path.join(tmp, 'models-b', 'read-only')).name, 'read-only');
    } finally {
      if (locked) immutable(ro, false);
      spawnSync('chmod', ['-R', 'u+w', ro]);
    }
    const roAfter = snapshot(ro);
    for (const rel of Object.keys(roBefore)) assert.equal(roAfter[rel]!.split(' ').filter((_, i) => i !== 1).join(' '), roBefore[rel]!.split(' ').filter((_, i) => i !== 1).join(' '), rel);
    assert.deepEqual(leftovers(tmpdir), [], 'nothing in the temporary folder');
  });

  const broken: [string, (dir: string) => void, RegExp][] = [
    ['truncated weights', (d) => fs.truncateSync(path.join(d, 'model.safetensors'), Math.floor(fs.statSync(path.join(d, 'model.safetensors')).size / 2)), /model\.safetensors: truncated: [\d,]+ bytes, but its header needs [\d,]+ \(tensor \S+ and the ones after it are cut off\)/],
    ['malformed weights (header length)', (d) => { const f = path.join(d, 'model.safetensors'); const b = fs.readFileSync(f); b.writeBigUInt64LE(1n << 40n, 0); fs.writeFileSync(f, b); }, /model\.safetensors: truncated or not a safetensors file: its first 8 bytes announce a [\d,]+-byte header and the whole file has [\d,]+ bytes/],
    ['malformed weights (header JSON)', (d) => { const f = path.join(d, 'model.safetensors'); const b = fs.readFileSync(f); b.write('#', 8); fs.writeFileSync(f, b); }, /model\.safetensors: malformed safetensors header: not valid JSON/],
    ['a missing tensor', (d) => rewriteSafetensors(path.join(d, 'model.safetensors'), (h, data) => { delete h['scorer.3.weight']; data.delete('scorer.3.weight'); }), /model\.safetensors: no tensor scorer\.3\.weight; laya's model for these configs needs it \(\d+ tensors, the file has \d+\)/],
    ['an encoder config that does not match its weights (hidden_size)', (d) => editField(path.join(d, 'encoder', 'config.json'), 'hidden_size', '128'), /encoder\/config\.json does not match model\.safetensors: tensor \S+ is \[[\d, ]+\] in the weights, \[[\d, ]+\] by the config \(hidden_size 128, intermediate_size \d+, vocab_size \d+, num_attention_heads \d+\)/],
    ['an encoder config that does not match its weights (layers)', (d) => {
      // six layers in the config (with six layer types, which transformers checks), four in the weights
      editField(path.join(d, 'encoder', 'config.json'), 'num_hidden_layers', '6');
      editField(path.join(d, 'encoder', 'config.json'), 'layer_types', JSON.stringify(['full_attention', 'sliding_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'sliding_attention']));
    }, /encoder\/config\.json does not match model\.safetensors: num_hidden_layers is 6, the weights hold 4 encoder layers/],
    ['an encoder config transformers refuses (floats written as integers by a JSON round trip)', (d) => editJson(path.join(d, 'encoder', 'config.json'), () => {}), /encoder\/config\.json: transformers cannot build the encoder it describes: StrictDataclassFieldValidationError: Validation error for field '\w+': TypeError: Field '\w+' expected float, got int \(value: \d+\)/],
    ['an unknown activation name', (d) => editJson(path.join(d, 'encoder', 'config.json'), (c) => { c['hidden_activation'] = 'gelu_fancy'; }), /encoder\/config\.json: hidden_activation is "gelu_fancy"; expected an activation transformers knows \(.*gelu_new.*\)/],
    ['invalid JSON in rl_agent_config.json', (d) => fs.writeFileSync(path.join(d, 'rl_agent_config.json'), '{"encoder": "x", "head_layers": 2,,}'), /rl_agent_config\.json: not valid JSON: Expecting property name enclosed in double quotes at line 1, column 35/],
    ['invalid JSON in the tokenizer config', (d) => fs.appendFileSync(path.join(d, 'tokenizer', 'tokenizer_config.json'), '\n}'), /tokenizer\/tokenizer_config\.json: not valid JSON: Extra data at line \d+, column 1/],
    ['invalid JSON in encoder/config.json', (d) => fs.writeFileSync(path.join(d, 'encoder', 'config.json'), '[1, 2'), /encoder\/config\.json: not valid JSON: Expecting ',' delimiter at line 1, column 6/],
    ['a malformed temperature', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['temperature'] = 1.3; }), /rl_agent_config\.json: temperature is 1\.3; expected a list of 3 numbers \[choice, score, noul\] \(laya refuses any other shape\)/],
    ['a malformed temperature_by_options', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['temperature_by_options'] = [1.1, 1.2]; }), /rl_agent_config\.json: temperature_by_options is \[1\.1, 1\.2\]; expected an object of "<type>:<bucket>" → number/],
    ['an impossible max_len (0)', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['max_len'] = 0; }), /rl_agent_config\.json: max_len is 0; expected an integer above head_max_len \(192\) and at most encoder\/config\.json's max_position_embeddings \(8192\)/],
    ['an impossible max_len (past the encoder\'s positions)', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['max_len'] = 100000; }), /rl_agent_config\.json: max_len is 100000; expected an integer above head_max_len/],
    ['an impossible max_len (text)', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['max_len'] = '512'; }), /rl_agent_config\.json: max_len is "512"; expected an integer/],
  ];
  for (const [label, mutate, message] of broken) {
    it(`${label}: one line naming the file, exit 2, no traceback, nothing left behind`, async () => {
      const src = copy(label.replace(/\W+/g, '-'), mutate);
      const out = path.join(tmp, 'models-broken');
      const r = await run('models', 'import', src, '--out', out, '--python', python, '--check-rows', '4');
      assert.equal(r.code, 2, r.err);
      const failure = r.err.slice(r.err.indexOf('structqa models import: '));
      assert.ok(r.err.includes('structqa models import: '), r.err);
      assert.match(failure, new RegExp(`^structqa models import: ${src.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      assert.match(failure, message);
      assert.ok(failure.trimEnd().split('\n').length <= 2, failure);
      assert.doesNotMatch(r.err, /Traceback|^\s+File "/m);
      assert.deepEqual(fs.existsSync(out) ? fs.readdirSync(out) : [], [], 'nothing left in --out');
      assert.deepEqual(leftovers(tmpdir), [], 'nothing left in the temporary folder');
    });
  }

  it('--verbose adds the converter\'s own output to a failure that is not a refusal', async () => {
    const src = copy('verbose', (d) => editJson(path.join(d, 'rl_agent_config.json'), (c) => { c['max_len'] = 0; }));
    const r = await run('models', 'import', src, '--out', path.join(tmp, 'models-verbose'), '--python', python, '--verbose');
    assert.equal(r.code, 2);
    assert.match(r.err, /step: |reading the checkpoint/);
  });

  it('temperatures laya warns about are applied as laya applies them, with the warning in plain words (not an error)', async () => {
    const src = copy('warned', (d) =>
      editJson(path.join(d, 'rl_agent_config.json'), (c) => {
        c['temperature'] = ['1.3', 'abc', true];
        c['temperature_by_options'] = { 'choice:2': 99, 'choice:3-5': 0.1006, 'score:6-10': null, 'noul:2': '0.9' };
        c['lang_temperatures'] = { fr: { temperature: [2, 2, 2] } };
      }),
    );
    const r = await run('models', 'import', src, '--out', path.join(tmp, 'models-warned'), '--python', python, '--check-rows', '4');
    assert.equal(r.code, 0, r.err);
    const warnings = r.err.split('\n').filter((l) => l.includes('warning: '));
    assert.equal(warnings.length, 6, r.err);
    assert.match(r.err, /warning: rl_agent_config\.json: temperature\[1\] \(score\) is "abc", not a number: laya uses 1 instead, and so does this import/);
    assert.match(r.err, /warning: rl_agent_config\.json: temperature\[2\] \(noul\) is true, not a number: laya uses 1 instead/);
    assert.match(r.err, /warning: rl_agent_config\.json: temperature_by_options\["choice:2"\] is 99, outside laya's \[0\.5, 5\]: laya uses 5 instead/);
    assert.match(r.err, /warning: rl_agent_config\.json: temperature_by_options\["choice:3-5"\] is 0\.1006, outside laya's \[0\.5, 5\]: laya uses 0\.5 instead/);
    assert.match(r.err, /warning: rl_agent_config\.json: temperature_by_options\["score:6-10"\] is null, not a number: laya uses 1 instead/);
    assert.match(r.err, /warning: rl_agent_config\.json: lang_temperatures is not read by laya when it loads a checkpoint/);
    const m = readManifest(path.join(tmp, 'models-warned', 'warned'));
    // laya's own Agent on the same folder (a copy: its loader patches the tokenizer config in place)
    const probe = copy('warned-laya', (d) => fs.cpSync(path.join(src, 'rl_agent_config.json'), path.join(d, 'rl_agent_config.json')));
    const agent = spawnSync(python, ['-c', [
      'import json, sys, warnings, laya',
      'from laya.common import temp_bucket',
      'warnings.simplefilter("ignore")',
      'a = laya.load(sys.argv[1], device="cpu")',
      'out = {t: {b: a.temperature_by_options.get(f"{t}:{b}", a.temperature[i]) for b in (["2"] if t == "noul" else ["2", "3-5", "6-10", "11+"])} for i, t in enumerate(["choice", "score", "noul"])}',
      'print(json.dumps({"table": out, "lang": a.lang_temperatures}))',
    ].join('\n'), probe], { encoding: 'utf8', env: { ...process.env, HF_HUB_OFFLINE: '1' } });
    assert.equal(agent.status, 0, agent.stderr);
    const laya = JSON.parse(agent.stdout) as { table: unknown; lang: Record<string, unknown> };
    assert.deepEqual(m.calibration.temperature, laya.table);
    assert.deepEqual(m.calibration.temperature, {
      choice: { '2': 5, '3-5': 0.5, '6-10': 1.3, '11+': 1.3 },
      score: { '2': 1, '3-5': 1, '6-10': 1, '11+': 1 },
      noul: { '2': 0.9 },
    });
    assert.equal(m.calibration.by_language, undefined, 'laya does not read lang_temperatures from a checkpoint');
    assert.deepEqual(laya.lang, {});
    assert.equal((m.provenance as { warnings: string[] }).warnings.length, 6);
  });

  it('a Decima export given one level off is told what it is and what to pass (never called a Laya checkpoint)', async () => {
    const repo = decimaExportRepo();
    const out = path.join(tmp, 'models-decima');
    const cases: [string[], RegExp][] = [
      [[path.join(repo, 'onnx')], /is the onnx\/ folder of a Decima repository, holding its ONNX exports in fp32\/, int8\/, one level below the repository's root: pass \S+onnx\/int8 \(that export itself\), or the root \S+ with --precision int8/],
      [[path.join(repo, 'onnx'), '--precision', 'fp32'], /is the onnx\/ folder of a Decima repository.*pass \S+onnx\/fp32 \(that export itself\), or the root \S+ with --precision fp32/],
      [[path.join(repo, 'onnx', 'int8'), '--precision', 'fp32'], /onnx\/int8 is a Decima ONNX export itself \(int8\); --precision fp32 picks onnx\/fp32\/ inside a repository's root: pass \S+ --precision fp32, or \S+onnx\/fp32/],
      [[path.join(repo, 'onnx', 'int8', 'tokenizer')], /tokenizer is the tokenizer\/ folder inside a Decima checkpoint: pass \S+onnx\/int8/],
    ];
    for (const [args, message] of cases) {
      const r = await run('models', 'import', ...args, '--out', out, '--python', python);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /Laya/);
      assert.equal(r.err.trimEnd().split('\n').length, 1, r.err);
    }
    assert.deepEqual(fs.existsSync(out) ? fs.readdirSync(out) : [], []);
  });
});
