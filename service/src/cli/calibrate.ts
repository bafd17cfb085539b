/**
 * `structqa models calibrate CHECKPOINT --cases FILE|DIR …`: fit a checkpoint's temperatures on labelled
 * cases run through the engine itself, judge the fit on held-out cases, and (--write) write it into the
 * checkpoint's manifest, keeping the table it replaces (docs/quality.md, "Calibrating a checkpoint").
 *
 * Exit status: 0 done (a report, or a fit written or restored); 1 a fit refused because held-out
 * log-loss got worse (nothing written); 2 bad input (cases, options, checkpoint).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { Engine } from '../engine/engine.js';
import { readManifest, type Manifest } from '../engine/manifest.js';
import { engineSettings } from '../server.js';
import { loadSuite, QUESTION_TYPES, type EvalCase, type QuestionType } from '../quality/cases.js';
import { formatFit, formatHeldOut, heldOutReport, reliabilityDiagrams, type HeldOutReport } from '../quality/calibration-report.js';
import { history, lastReplaced, writeCalibration } from '../quality/calibration-history.js';
import { CaseInputError, checkQuestions, scoreCases, type ScoredCase } from '../quality/engine-cases.js';
import { DEFAULT_HOLDOUT, DEFAULT_SEED, holdoutSplit } from '../quality/holdout.js';
import { fitCalibration, type FitResult } from '../quality/temperature-fit.js';

/** Bad input: one line on stderr, exit status 2. */
class UsageError extends Error {}

interface CalibrateFlags {
  cases?: string[];
  holdout: string;
  seed: string;
  byLanguage?: boolean;
  minCases: string;
  types?: string;
  out?: string;
  write?: boolean;
  restore?: boolean;
  concurrency: string;
}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const integer = (flag: string, v: string, min: number): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
};

export function registerCalibrateCommand(models: Command, config: Config, io: Io): void {
  models
    .command('calibrate')
    .description(
      'Fit temperatures per question type × option-count bucket (and per language) by maximum likelihood on labelled cases run through the engine, ' +
        'judge them on held-out cases, and with --write put them into the manifest (the earlier table is kept in provenance.calibration_history).',
    )
    .argument('<checkpoint>', 'checkpoint folder, or the name of a configured checkpoint')
    .option('--cases <path>', 'labelled cases: JSONL or jabr-style TOML, or a folder of them (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .option('--holdout <share|path>', 'held-out share of each type, or a file/folder of held-out cases', String(DEFAULT_HOLDOUT))
    .option('--seed <n>', 'seed of the held-out split', String(DEFAULT_SEED))
    .option('--by-language', 'also fit per-language overrides where a language has enough cases of a type')
    .option('--min-cases <n>', 'fewest fitting cases for a type, a language\'s type or a bucket to get its own temperature', '30')
    .option('--types <list>', 'fit only these types (comma-separated: noul,choice,score)')
    .option('--out <dir>', 'also write report.txt, fit.json, the reliability diagrams and the held-out cases (JSONL) here')
    .option('--write', 'write the fit into the manifest (refused when held-out log-loss gets worse)')
    .option('--restore', 'put back the table the last write replaced (with --write; no --cases)')
    .option('--concurrency <n>', 'cases in flight in the engine', '32')
    .action(async (checkpoint: string, opts: CalibrateFlags) => {
      try {
        process.exitCode = await calibrate(checkpoint, opts, config, io);
      } catch (e) {
        if (!(e instanceof UsageError || e instanceof CaseInputError)) throw e;
        io.err(`structqa models calibrate: ${e.message}\n`);
        process.exitCode = 2;
      }
    });
}

/** A folder holding manifest.json, a configured checkpoint's folder, or a folder of that name in the models folder. */
function checkpointDir(arg: string, config: Config): string {
  const candidates = [path.resolve(arg), config.models.checkpoints[arg]?.dir, path.join(config.models.dir, arg)];
  const dir = candidates.find((d) => d !== undefined && fs.existsSync(path.join(d, 'manifest.json')));
  if (!dir) throw new UsageError(`${arg}: no checkpoint folder (with manifest.json) or configured checkpoint of that name`);
  return dir;
}

function readCases(paths: readonly string[]): EvalCase[] {
  const cases: EvalCase[] = [];
  const seen = new Map<string, string>();
  for (const p of paths) {
    let loaded: EvalCase[];
    try {
      loaded = loadSuite(path.resolve(p));
    } catch (e) {
      throw new UsageError(`cannot read cases: ${(e as Error).message}`);
    }
    for (const c of loaded) {
      const other = seen.get(c.id);
      if (other !== undefined) throw new UsageError(`case id ${c.id} appears twice (${other} and ${p}): the held-out split is drawn by id`);
      seen.set(c.id, p);
      cases.push(c);
    }
  }
  return cases;
}

function parseTypes(list: string | undefined): QuestionType[] {
  if (list === undefined) return [...QUESTION_TYPES];
  const types = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = types.filter((t) => !(QUESTION_TYPES as readonly string[]).includes(t));
  if (unknown.length || !types.length) throw new UsageError(`--types takes noul, choice, score; got ${JSON.stringify(list)}`);
  return types as QuestionType[];
}

const countByType = (cases: readonly { question: { type: QuestionType } }[]) =>
  QUESTION_TYPES.map((t) => `${t} ${cases.filter((c) => c.question.type === t).length}`).join(', ');

async function calibrate(checkpoint: string, opts: CalibrateFlags, config: Config, io: Io): Promise<number> {
  const dir = checkpointDir(checkpoint, config);
  let manifest: Manifest;
  try {
    manifest = readManifest(dir);
    history(manifest); // a history that is not a list is refused before any work
  } catch (e) {
    const message = (e as Error).message;
    throw new UsageError(message.includes('manifest.json') ? message : `${path.join(dir, 'manifest.json')}: ${message}`);
  }
  if (opts.restore) return restore(dir, manifest, opts, io);
  if (!opts.cases?.length) throw new UsageError('give the labelled cases with --cases FILE|DIR');

  const types = parseTypes(opts.types);
  const minCases = integer('--min-cases', opts.minCases, 2);
  const seed = integer('--seed', opts.seed, 0);
  const concurrency = integer('--concurrency', opts.concurrency, 1);
  const wanted = (c: EvalCase) => types.includes(c.question.type);
  const given = readCases(opts.cases).filter(wanted);
  let split: { fit: EvalCase[]; holdout: EvalCase[] };
  let holdoutText: string;
  const share = Number(opts.holdout);
  if (/^[0-9.]+$/.test(opts.holdout)) {
    if (!(share > 0 && share < 1)) throw new UsageError(`--holdout takes a share between 0 and 1 (or a file of held-out cases), got ${opts.holdout}`);
    split = holdoutSplit(given, share, seed);
    holdoutText = `${Math.round(share * 100)} % of each type, seed ${seed}`;
  } else {
    const holdout = readCases([opts.holdout]).filter(wanted);
    const fitIds = new Set(given.map((c) => c.id));
    const both = holdout.filter((c) => fitIds.has(c.id));
    if (both.length) throw new UsageError(`${both.length} held-out cases are also among --cases (first: ${both[0]!.id}): they would not be held out`);
    split = { fit: given, holdout };
    holdoutText = opts.holdout;
  }
  checkQuestions([...split.fit, ...split.holdout]);
  if (!types.some((t) => split.fit.filter((c) => c.question.type === t).length >= minCases)) {
    throw new UsageError(`too few cases to fit: ${countByType(split.fit)} in the fitting split; a type needs at least ${minCases} (--min-cases)`);
  }

  io.err(`calibrate: ${manifest.name} (${dir}): ${split.fit.length} fitting and ${split.holdout.length} held-out cases (${holdoutText})\n`);
  const engine = new Engine({
    checkpoints: { [manifest.name]: { dir, int8: config.models.checkpoints[manifest.name]?.int8 ?? false } },
    ...engineSettings(config),
    // writes nothing outside --out and --write: the graph itself, not a shared-weights copy in the data folder
    sharedWeightsDir: undefined,
    // a queue of cases is not an overload: no bound on the wait
    batcher: { ...engineSettings(config).batcher, maxQueueWaitMs: 0 },
  });
  let scored: ScoredCase[];
  let skipped: { id: string; reason: string }[];
  try {
    await engine.start();
    const all = [...split.fit, ...split.holdout];
    const step = Math.max(1, Math.ceil(all.length / 10));
    ({ scored, skipped } = await scoreCases(engine, manifest.name, all, {
      concurrency,
      onProgress: (done) => {
        if (done % step === 0 || done === all.length) io.err(`  ${done}/${all.length}\n`);
      },
    }));
  } finally {
    await engine.close();
  }
  const heldIds = new Set(split.holdout.map((c) => c.id));
  const fitScored = scored.filter((s) => !heldIds.has(s.case.id));
  const heldScored = scored.filter((s) => heldIds.has(s.case.id));

  const fit = fitCalibration(
    manifest.calibration,
    fitScored.map((s) => ({ type: s.type, language: s.language, logits: s.logits, label: s.label })),
    { minCases, byLanguage: opts.byLanguage ?? false, types },
  );
  if (!fit.cells.length) {
    throw new UsageError(`too few cases to fit: ${countByType(fitScored.map((s) => s.case))} answerable in the fitting split; a type needs at least ${minCases} (--min-cases)`);
  }
  const fittedTypes = [...new Set(fit.cells.map((c) => c.type))];
  const unjudged = fittedTypes.filter((t) => !heldScored.some((s) => s.type === t));
  if (unjudged.length) throw new UsageError(`no held-out ${unjudged.join(', ')} cases to judge the fit on: give more cases or a larger --holdout`);

  const report = heldOutReport(heldScored, manifest.calibration, fit.calibration, opts.byLanguage ?? false);
  const changed = !isDeepStrictEqual(fit.calibration, manifest.calibration);
  const text = formatReport({ manifest, dir, split, holdoutText, skipped, fit, minCases, report });
  io.out(`${text}\n`);
  if (opts.out) writeOutputs(opts.out, { manifest, text, fit, report, split, skipped, settings: { holdout: holdoutText, seed, minCases, types, byLanguage: opts.byLanguage ?? false } });

  if (!changed) {
    io.out('\nthe fit changes no temperature: nothing to write\n');
    return 0;
  }
  if (report.worse.length) {
    io.out(`\nrefused: held-out log-loss gets worse (${report.worse.join(', ')}); ${opts.write ? 'nothing written' : '--write would refuse it'}\n`);
    return opts.write ? 1 : 0;
  }
  if (!opts.write) {
    io.out('\nheld-out log-loss is no worse: --write writes this fit into the manifest (the current table is kept in provenance.calibration_history)\n');
    return 0;
  }
  writeCalibration(dir, fit.calibration, {
    written_at: new Date().toISOString(),
    by: 'structqa models calibrate',
    fit: fitRecord({ opts, split, skipped, fit, report, holdoutText, seed, minCases, types }),
  });
  io.out(`\nwrote ${path.join(dir, 'manifest.json')}: calibration replaced, the earlier table kept in provenance.calibration_history\n`);
  return 0;
}

function restore(dir: string, manifest: Manifest, opts: CalibrateFlags, io: Io): number {
  if (opts.cases?.length) throw new UsageError('--restore takes no --cases');
  const last = lastReplaced(manifest);
  if (!last) throw new UsageError(`${path.join(dir, 'manifest.json')}: no provenance.calibration_history: nothing to restore`);
  io.out(`${manifest.name}: calibration now\n${JSON.stringify(manifest.calibration)}\nrestores entry ${last.index} of provenance.calibration_history:\n${JSON.stringify(last.calibration)}\n`);
  if (!opts.write) {
    io.out('--write to restore it (the current table is kept in the history too)\n');
    return 0;
  }
  writeCalibration(dir, last.calibration, { written_at: new Date().toISOString(), by: 'structqa models calibrate --restore', restored_from: last.index });
  io.out(`restored ${path.join(dir, 'manifest.json')}\n`);
  return 0;
}

interface ReportParts {
  manifest: Manifest;
  dir: string;
  split: { fit: EvalCase[]; holdout: EvalCase[] };
  holdoutText: string;
  skipped: { id: string; reason: string }[];
  fit: FitResult;
  minCases: number;
  report: HeldOutReport;
}

function formatReport(p: ReportParts): string {
  const lines = [`structqa models calibrate — ${p.manifest.name} (${p.dir}) — ${new Date().toISOString()}`];
  if (p.manifest.fixture) lines.push('FIXTURE: random weights; these figures say nothing about answer quality');
  lines.push(`cases: fitting ${p.split.fit.length} (${countByType(p.split.fit)}), held out ${p.split.holdout.length} (${countByType(p.split.holdout)}; ${p.holdoutText})`);
  if (p.skipped.length) {
    const reasons = [...new Set(p.skipped.map((s) => s.reason))].map((r) => `${p.skipped.filter((s) => s.reason === r).length} ${r}`);
    lines.push(`skipped ${p.skipped.length} cases the checkpoint refuses as a server would (${reasons.join(', ')}; first: ${p.skipped[0]!.id})`);
  }
  lines.push('', ...formatFit(p.fit, p.minCases), '', ...formatHeldOut(p.report));
  const held = p.report.slices[0]!.before.cases;
  lines.push('', `predicted option unchanged on ${p.report.argmax_unchanged} of ${held} held-out cases (a temperature moves no argmax)`);
  lines.push(
    'ECE: top-label confidence, 15 equal-width bins; floor: the ECE a perfectly calibrated model with the fitted confidences would show on ' +
      'as many cases (sampling noise); Brier: multi-class, 0..2; log-loss: mean −ln p(expected option). ' +
      'Before: the manifest\'s temperatures; after: the fit. Per-language rows use the language the router detects.',
  );
  return lines.join('\n');
}

interface RecordParts {
  opts: CalibrateFlags;
  split: { fit: EvalCase[]; holdout: EvalCase[] };
  skipped: { id: string; reason: string }[];
  fit: FitResult;
  report: HeldOutReport;
  holdoutText: string;
  seed: number;
  minCases: number;
  types: QuestionType[];
}

/** What provenance.calibration_history keeps about a fit: its inputs, settings and held-out verdict. */
function fitRecord(p: RecordParts): Record<string, unknown> {
  return {
    cases: p.opts.cases ?? [],
    fitting_cases: p.split.fit.length,
    held_out_cases: p.split.holdout.length,
    skipped_cases: p.skipped.length,
    holdout: p.holdoutText,
    seed: p.seed,
    min_cases: p.minCases,
    types: p.types,
    by_language: p.opts.byLanguage ?? false,
    clamped: p.fit.cells.filter((c) => c.clamped).map((c) => `${c.type} ${c.bucket}${c.language ? ` @${c.language}` : ''}: ${c.fitted.toPrecision(4)} → ${c.value}`),
    held_out: Object.fromEntries(
      p.report.slices.filter((s) => s.bucket === undefined && s.language === undefined).map((s) => [s.name, { before: s.before, after: s.after }]),
    ),
  };
}

function writeOutputs(
  dir: string,
  o: { manifest: Manifest; text: string; fit: FitResult; report: HeldOutReport; split: { holdout: EvalCase[] }; skipped: unknown[]; settings: Record<string, unknown> },
): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'report.txt'), `${o.text}\n`);
  const { series: _series, ...report } = o.report;
  fs.writeFileSync(
    path.join(dir, 'fit.json'),
    `${JSON.stringify({ checkpoint: o.manifest.name, settings: o.settings, before: o.manifest.calibration, after: o.fit.calibration, cells: o.fit.cells, kept: o.fit.kept, held_out: report, skipped: o.skipped }, null, 2)}\n`,
  );
  const png = reliabilityDiagrams(o.report, o.manifest.name);
  fs.writeFileSync(path.join(dir, 'reliability-before.png'), png.before);
  fs.writeFileSync(path.join(dir, 'reliability-after.png'), png.after);
  // the held-out cases as a suite, so `npm run eval -- --suite` can measure the served checkpoint on exactly them
  const lines = o.split.holdout.map((c) =>
    JSON.stringify({ id: c.id, task: c.task, ...(c.lang ? { lang: c.lang } : {}), ...(c.domain ? { domain: c.domain } : {}), state: c.state, question: c.question, answer: c.expected }),
  );
  fs.writeFileSync(path.join(dir, `${o.manifest.name}-holdout.jsonl`), lines.length ? `${lines.join('\n')}\n` : '');
}
