/**
 * Checks of the hand-written evaluation set (eval/handwritten, issue 19; format in docs/quality.md):
 * every line in the format, ids unique, no repeated state within a task, counts per language, domain
 * and type, and contamination: no eval state, nor any run of CONTAMINATION_NGRAM words of one, may
 * occur in what training reads. Pure functions over texts plus two readers; run by
 * bench/test/handwritten-set.test.ts (in `npm test`) and by `npm run eval-check` (prints the counts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { visit } from 'jsonc-parser';
import { suiteFiles } from '../../service/src/quality/cases.js';
import { groupBy } from '../../service/src/quality/metrics.js';

export const DOMAINS = [
  'agent-trace',
  'support-thread',
  'invoice-expense',
  'code-review',
  'rag',
  'moderation',
  'security-alert',
  'hr-legal',
  'commerce',
  'health-admin',
  'misc',
] as const;

/** The models read 512 tokens shared by question, options and state: the state must leave room. */
export const MAX_STATE_CHARS = 1700;
/** With more than MANY_LABELS options the options take much of the window: a shorter state. */
export const MANY_LABELS = 15;
export const MAX_STATE_CHARS_MANY_LABELS = 900;
/** Words in a run that counts as contamination (about 70–90 characters of English). */
export const CONTAMINATION_NGRAM = 12;

const ID = /^[a-z0-9][a-z0-9_-]*-\d{4,}$/;
const KEYS = new Set(['id', 'lang', 'domain', 'task', 'state', 'question', 'answer']);

export interface SetCase {
  file: string;
  line: number;
  id: string;
  lang: string;
  domain: string;
  task: string;
  type: 'noul' | 'choice' | 'score';
  state: unknown;
  question: unknown;
  answer: unknown;
  labels: number;
}

export interface FileResult {
  cases: SetCase[];
  problems: string[];
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The state as the API receives it: a string as is, JSON compact-serialised. */
export const stateText = (state: unknown): string => (typeof state === 'string' ? state : JSON.stringify(state));

/** Keys that occur twice in one object of a JSON text (JSON.parse silently keeps the last one). */
export function duplicateKeys(text: string): string[] {
  const stack: Set<string>[] = [];
  const dups: string[] = [];
  visit(text, {
    onObjectBegin: () => void stack.push(new Set()),
    onObjectEnd: () => void stack.pop(),
    onObjectProperty: (name) => {
      const keys = stack[stack.length - 1]!;
      if (keys.has(name)) dups.push(name);
      keys.add(name);
    },
  });
  return dups;
}

/**
 * Problems of one line (none: the case is well-formed). `english` says whether the file sits under en/ (lang must be "en") or
 * elsewhere (lang must not be).
 */
export function checkLine(text: string, english: boolean): { problems: string[]; data?: Record<string, unknown> } {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch (e) {
    return { problems: [`invalid JSON (${(e as Error).message})`] };
  }
  if (!isRecord(d)) return { problems: ['not a JSON object'] };
  const p: string[] = [];
  for (const k of duplicateKeys(text)) p.push(`key ${JSON.stringify(k)} twice in one object`);
  for (const k of Object.keys(d)) if (!KEYS.has(k)) p.push(`unknown key ${JSON.stringify(k)}`);
  // ids are "<file stem or its abbreviation>-<nnnn>"; one prefix per file (crossChecks)
  if (typeof d.id !== 'string' || !ID.test(d.id)) p.push(`id ${JSON.stringify(d.id)} is not "<prefix>-<nnnn>"`);
  if (typeof d.lang !== 'string' || !/^[a-z]{2}$/.test(d.lang)) p.push(`lang ${JSON.stringify(d.lang)} is not an ISO 639-1 code`);
  else if (english !== (d.lang === 'en')) p.push(`lang ${d.lang} in a file under ${english ? 'en/' : 'multi/'}`);
  if (typeof d.domain !== 'string' || !(DOMAINS as readonly string[]).includes(d.domain)) p.push(`domain ${JSON.stringify(d.domain)} is not one of ${DOMAINS.join(', ')}`);
  if (typeof d.task !== 'string' || !/^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,79}$/u.test(d.task)) p.push(`task ${JSON.stringify(d.task)} is not a short id`);
  const state = d.state;
  if (typeof state === 'string' ? !state.trim() : !(isRecord(state) || Array.isArray(state)) || stateText(state).length <= 2) {
    p.push('state must be a non-empty string, object or array');
  }
  const q = d.question;
  if (!isRecord(q)) return { problems: [...p, 'question must be an object'] };
  for (const k of Object.keys(q)) if (!['type', 'instructions', 'criteria'].includes(k)) p.push(`unknown question key ${JSON.stringify(k)}`);
  if (typeof q.instructions !== 'string' || !q.instructions.trim()) p.push('question.instructions must be a non-empty string');
  const a = d.answer;
  let labels = 0;
  if (q.type === 'noul') {
    if ('criteria' in q) p.push('a noul question has no criteria');
    if (typeof a !== 'boolean') p.push(`noul answer ${JSON.stringify(a)} is not true/false`);
  } else if (q.type === 'choice') {
    const c = q.criteria;
    if (!isRecord(c)) p.push('choice criteria must be an object label → description');
    else {
      const ls = Object.keys(c);
      labels = ls.length;
      if (ls.length < 2 || ls.length > 40) p.push(`choice has ${ls.length} labels (2–40)`);
      const seen = new Set<string>();
      for (const l of ls) {
        if (!l.trim() || l !== l.trim()) p.push(`label ${JSON.stringify(l)} is empty or padded`);
        const norm = l.toLowerCase();
        if (seen.has(norm)) p.push(`labels differ only in case: ${JSON.stringify(l)}`);
        seen.add(norm);
        if (c[l] !== null && (typeof c[l] !== 'string' || !(c[l] as string).trim())) p.push(`description of ${JSON.stringify(l)} must be a non-empty string or null`);
      }
      if (typeof a !== 'string' || !ls.includes(a)) p.push(`choice answer ${JSON.stringify(a)} is not one of the labels`);
      if (ls.length > MANY_LABELS && state !== undefined && stateText(state).length > MAX_STATE_CHARS_MANY_LABELS) {
        p.push(`state of ${stateText(state).length} characters with ${ls.length} labels (max ${MAX_STATE_CHARS_MANY_LABELS} above ${MANY_LABELS} labels)`);
      }
    }
  } else if (q.type === 'score') {
    const c = q.criteria;
    if (!Array.isArray(c) || c.length < 3 || c.length > 7 || !c.every((x) => typeof x === 'string' && x.trim())) {
      p.push('score criteria must be a list of 3–7 non-empty level descriptions');
    } else {
      labels = c.length;
      if (new Set(c).size !== c.length) p.push('score levels repeat');
      if (typeof a !== 'number' || !Number.isInteger(a) || a < 0 || a >= c.length) p.push(`score answer ${JSON.stringify(a)} is not a level 0..${c.length - 1}`);
    }
  } else p.push(`question.type ${JSON.stringify(q.type)} is not noul, choice or score`);
  if (state !== undefined && stateText(state).length > MAX_STATE_CHARS) p.push(`state of ${stateText(state).length} characters (max ${MAX_STATE_CHARS})`);
  return { problems: p, data: { ...d, labels } };
}

/** Reads one .jsonl file of the set; `english`: the file lies under en/. */
export function checkFile(file: string, english: boolean): FileResult {
  const rel = file;
  const cases: SetCase[] = [];
  const problems: string[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      const { problems: ps, data } = checkLine(text, english);
      for (const msg of ps) problems.push(`${rel}:${i + 1}: ${msg}`);
      if (!ps.length && data) {
        const q = data.question as Record<string, unknown>;
        cases.push({
          file: rel,
          line: i + 1,
          id: data.id as string,
          lang: data.lang as string,
          domain: data.domain as string,
          task: data.task as string,
          type: q.type as SetCase['type'],
          state: data.state,
          question: data.question,
          answer: data.answer,
          labels: data.labels as number,
        });
      }
    });
  return { cases, problems };
}

/** Problems across the set: repeated ids, several id prefixes in one file, a state repeated within one task of one file. */
export function crossChecks(cases: readonly SetCase[]): string[] {
  const p: string[] = [];
  for (const [file, cs] of groupBy(cases, (c) => c.file)) {
    const prefixes = new Set(cs.map((c) => c.id.replace(/-\d+$/, '')));
    if (prefixes.size > 1) p.push(`${file}: ids with ${prefixes.size} prefixes (${[...prefixes].slice(0, 5).join(', ')}); one per file`);
  }
  for (const [id, cs] of groupBy(cases, (c) => c.id)) {
    if (cs.length > 1) p.push(`id ${id} used ${cs.length} times (${cs.map((c) => `${c.file}:${c.line}`).join(', ')})`);
  }
  for (const [key, cs] of groupBy(cases, (c) => `${c.file}\u0000${c.task}\u0000${stateText(c.state).replace(/\s+/g, ' ').trim()}`)) {
    if (cs.length > 1) p.push(`same state twice in task ${key.split('\u0000')[1]}: ${cs.map((c) => `${c.file}:${c.line}`).join(', ')}`);
  }
  return p;
}

/** Advice rather than errors (EVAL-WRITING): tasks of 4–30 cases, answers that vary within a task. */
export function warnings(cases: readonly SetCase[]): string[] {
  const w: string[] = [];
  for (const [key, cs] of groupBy(cases, (c) => `${c.file}:${c.task}`)) {
    if (cs.length < 4 || cs.length > 30) w.push(`task ${key}: ${cs.length} cases (4–30 advised)`);
    if (cs.length >= 4 && new Set(cs.map((c) => JSON.stringify(c.answer))).size === 1) w.push(`task ${key}: every answer is ${JSON.stringify(cs[0]!.answer)}`);
  }
  return w;
}

// ---------------------------------------------------------------- contamination

const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]$/u;

/** Words for overlap: runs of letters/digits, lower-cased; each Han/kana/Thai character on its own (no spaces there). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]|[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

/** A character of a script written without spaces counts half a word (12 words ≈ 24 characters of Japanese). */
const weight = (w: string) => (UNSPACED.test(w) ? 0.5 : 1);
const totalWeight = (ws: readonly string[]) => ws.reduce((s, w) => s + weight(w), 0);

/** Every run of consecutive words weighing `n` (the shortest from each start), joined by spaces. */
export function ngrams(ws: readonly string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < ws.length; i++) {
    let sum = 0;
    let j = i;
    while (j < ws.length && sum < n) sum += weight(ws[j++]!);
    if (sum < n) break;
    out.push(ws.slice(i, j).join(' '));
  }
  return out;
}

/** Every string (keys included), number and boolean of a JSON value, in document order, as words. */
export function valueWords(v: unknown): string[] {
  if (typeof v === 'string') return words(v);
  if (typeof v === 'number' || typeof v === 'boolean') return words(String(v));
  if (Array.isArray(v)) return v.flatMap(valueWords);
  if (isRecord(v)) return Object.entries(v).flatMap(([k, x]) => [...words(k), ...valueWords(x)]);
  return [];
}

export interface Contamination {
  id: string;
  source: string;
  /** The shared words (the whole state when it is shorter than the n-gram). */
  overlap: string;
}

/**
 * Eval states found in training texts: a state shorter than `n` words when a training text equals it
 * word for word, a longer one when any of its `n`-word runs occurs in a training text (a Han, kana or
 * Thai character counts half a word: 24 characters, so that stock phrases such as a Japanese
 * "thank you for your enquiry" do not count). `training`
 * yields every JSON value training reads, line by line (each line's values, state and question both).
 */
export function findContamination(cases: readonly { id: string; state: unknown }[], training: Iterable<{ source: string; value: unknown }>, n = CONTAMINATION_NGRAM): Contamination[] {
  const grams = new Map<string, string>(); // n-gram → first case id
  const whole = new Map<string, string>(); // short state's words → case id
  for (const c of cases) {
    const w = valueWords(c.state);
    if (totalWeight(w) < n) {
      if (w.length) whole.set(w.join(' '), c.id);
      continue;
    }
    for (const g of ngrams(w, n)) if (!grams.has(g)) grams.set(g, c.id);
  }
  const found = new Map<string, Contamination>();
  const note = (id: string | undefined, source: string, overlap: string) => {
    if (id !== undefined && !found.has(id)) found.set(id, { id, source, overlap });
  };
  const exact = (source: string, w: string[]) => {
    if (whole.size && w.length && totalWeight(w) < n) note(whole.get(w.join(' ')), source, w.join(' '));
  };
  for (const { source, value } of training) {
    // a short eval state may equal one training field, or a whole training state
    const collect = (v: unknown): void => {
      if (typeof v === 'string') exact(source, words(v));
      else if (Array.isArray(v)) v.forEach(collect);
      else if (isRecord(v)) Object.values(v).forEach(collect);
    };
    collect(value);
    if (isRecord(value) && 'state' in value) exact(source, valueWords(value.state));
    for (const g of ngrams(valueWords(value), n)) note(grams.get(g), source, g);
  }
  return [...found.values()];
}

/** Directories under training/ never holding training data (environments, caches). */
const SKIP_DIRS = new Set(['node_modules', '.venv', '__pycache__', '.pytest_cache', '.cache']);

/** Every .jsonl / .json data file training can read: everything under training/ (the corpus's raw.jsonl, any build). */
export function trainingDataFiles(trainingDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.venv')) walk(path.join(dir, e.name));
      } else if (/\.jsonl$/.test(e.name)) out.push(path.join(dir, e.name));
    }
  };
  walk(trainingDir);
  return out.sort();
}

/** Lines of JSONL files as JSON values (unparseable lines as their text). */
export function* jsonlValues(files: readonly string[]): Generator<{ source: string; value: unknown }> {
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = line;
      }
      yield { source: `${file}:${i + 1}`, value };
    }
  }
}

// ---------------------------------------------------------------- the whole set

export interface SetReport {
  files: string[];
  cases: SetCase[];
  problems: string[];
  warnings: string[];
  contamination: Contamination[];
}

/** Checks every .jsonl under `dir` (files under en/ are English) against training data under `trainingDir`. */
export function checkSet(dir: string, trainingDir: string): SetReport {
  const files = suiteFiles(dir).filter((f) => f.endsWith('.jsonl'));
  const cases: SetCase[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const rel = path.relative(dir, f).split(path.sep);
    const r = checkFile(f, rel[0] === 'en');
    cases.push(...r.cases.map((c) => ({ ...c, file: rel.join('/') })));
    problems.push(...r.problems.map((m) => m.replace(f, rel.join('/'))));
  }
  problems.push(...crossChecks(cases));
  const contamination = findContamination(cases, jsonlValues(trainingDataFiles(trainingDir)));
  return { files: files.map((f) => path.relative(dir, f)), cases, problems, warnings: warnings(cases), contamination };
}

/** Counts per language, domain and type (with the noul true share), as printed by the checker. */
export function formatCounts(cases: readonly SetCase[]): string {
  const lines: string[] = [];
  const en = cases.filter((c) => c.lang === 'en').length;
  lines.push(`hand-written set: ${cases.length} cases — English ${en}, non-English ${cases.length - en}`);
  const table = (title: string, key: (c: SetCase) => string) => {
    const groups = [...groupBy(cases, key).entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    const width = Math.max(title.length, ...groups.map(([k]) => k.length)) + 1;
    lines.push(`${title.padEnd(width)} cases   noul choice  score  noul true`);
    for (const [k, cs] of groups) {
      const t = (type: string) => cs.filter((c) => c.type === type);
      const nouls = t('noul');
      const share = nouls.length ? `${((100 * nouls.filter((c) => c.answer === true).length) / nouls.length).toFixed(0)}%` : '-';
      lines.push(`${k.padEnd(width)} ${String(cs.length).padStart(5)}  ${String(nouls.length).padStart(5)}  ${String(t('choice').length).padStart(5)}  ${String(t('score').length).padStart(5)}  ${share.padStart(9)}`);
    }
  };
  table('lang', (c) => c.lang);
  table('domain', (c) => c.domain);
  table('file', (c) => c.file);
  const tasks = groupBy(cases, (c) => `${c.file}:${c.task}`).size;
  const choices = cases.filter((c) => c.type === 'choice');
  const bucket = (k: number) => (k <= 6 ? '2–6' : k <= 15 ? '7–15' : '16–40');
  const byLabels = groupBy(choices, (c) => bucket(c.labels));
  lines.push(`tasks ${tasks}; choice labels: ${['2–6', '7–15', '16–40'].map((b) => `${b} ${byLabels.get(b)?.length ?? 0}`).join(', ')}`);
  return lines.join('\n');
}
