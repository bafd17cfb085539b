/**
 * Evaluation cases for `npm run eval`, read from jabr-style TOML suites (top-level `[[task]]` with
 * `id`, `type`, `question.{instructions, criteria}` and `cases[] {state, expected}`) or from JSONL
 * (one `{"id", "lang"?, "domain"?, "task"?, "state", "question": {type, instructions, criteria}, "answer"}` a
 * line, the training corpus and hand-written set format). Both become one `EvalCase` list. A directory
 * is read as every `.jsonl` / `.toml` file under it, recursively (the hand-written set, eval/handwritten).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';

export type QuestionType = 'noul' | 'choice' | 'score';
export const QUESTION_TYPES: readonly QuestionType[] = ['noul', 'choice', 'score'];

export interface EvalQuestion {
  type: QuestionType;
  /** A string or any JSON value, as the API accepts. */
  instructions?: unknown;
  /** choice: label → description (any JSON value, as the API accepts); score: levels from 0; noul: absent. */
  criteria?: Record<string, unknown> | unknown[];
}

export interface EvalCase {
  id: string;
  /** Task (group of cases sharing one question) for macro accuracy and the worst-task list. */
  task: string;
  lang?: string;
  /** Kind of text (agent-trace, support-thread, rag, …) for the per-domain table; hand-written set. */
  domain?: string;
  state: unknown;
  question: EvalQuestion;
  /** noul: boolean; choice: label; score: level index. */
  expected: boolean | string | number;
}

function fail(where: string, msg: string): never {
  throw new Error(`${where}: ${msg}`);
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Checks one question + expected answer pair and normalises it. */
export function checkCase(where: string, c: Omit<EvalCase, 'question' | 'expected'> & { question: unknown; expected: unknown }): EvalCase {
  if (!isRecord(c.question)) fail(where, 'question must be an object');
  const q = c.question;
  const type = q.type;
  if (type !== 'noul' && type !== 'choice' && type !== 'score') fail(where, `unknown question type ${JSON.stringify(type)}`);
  if (q.instructions === null) fail(where, 'question.instructions must be a string or a JSON value, not null');
  const question: EvalQuestion = { type, ...(q.instructions !== undefined ? { instructions: q.instructions } : {}) };
  let expected: boolean | string | number;
  if (type === 'noul') {
    if (typeof c.expected !== 'boolean') fail(where, 'a noul case expects true or false');
    // a noul question may carry its own statement texts ({true, false}, either side): sent as given
    if (q.criteria !== undefined) question.criteria = q.criteria as Record<string, unknown>;
    expected = c.expected;
  } else if (type === 'choice') {
    if (!isRecord(q.criteria)) fail(where, 'choice criteria must map labels to descriptions');
    question.criteria = { ...q.criteria };
    if (typeof c.expected !== 'string' || !(c.expected in q.criteria)) fail(where, `expected ${JSON.stringify(c.expected)} is not a label`);
    expected = c.expected;
  } else {
    if (!Array.isArray(q.criteria)) fail(where, 'score criteria must be a list of levels');
    question.criteria = [...(q.criteria as unknown[])];
    const e = c.expected;
    if (typeof e !== 'number' || !Number.isInteger(e) || e < 0 || e >= q.criteria.length) {
      fail(where, `expected ${JSON.stringify(e)} is not a level 0..${q.criteria.length - 1}`);
    }
    expected = e;
  }
  const out: EvalCase = { id: c.id, task: c.task, state: c.state, question, expected };
  if (c.lang !== undefined) out.lang = c.lang;
  if (c.domain !== undefined) out.domain = c.domain;
  return out;
}

export function parseTomlSuite(text: string, source = 'suite'): EvalCase[] {
  const doc = parseToml(text) as Record<string, unknown>;
  const tasks = doc.task;
  if (!Array.isArray(tasks)) fail(source, 'no top-level [[task]] array');
  const out: EvalCase[] = [];
  tasks.forEach((t: unknown, ti) => {
    if (!isRecord(t)) fail(`${source} task ${ti}`, 'not a table');
    const id = typeof t.id === 'string' ? t.id : fail(`${source} task ${ti}`, 'missing id');
    const q = isRecord(t.question) ? t.question : fail(`${source} task ${id}`, 'missing question');
    const question = { ...q, type: t.type ?? q.type };
    const cases = Array.isArray(t.cases) ? t.cases : fail(`${source} task ${id}`, 'missing cases');
    cases.forEach((c: unknown, ci) => {
      if (!isRecord(c)) fail(`${source} ${id}#${ci}`, 'case is not a table');
      const lang = typeof c.lang === 'string' ? c.lang : typeof t.lang === 'string' ? t.lang : undefined;
      out.push(
        checkCase(`${source} ${id}#${ci}`, {
          id: `${id}#${ci}`,
          task: id,
          ...(lang !== undefined ? { lang } : {}),
          state: c.state,
          question,
          expected: c.expected,
        }),
      );
    });
  });
  return out;
}

/** Task of a JSONL case: its `task` field, else its id without a trailing `-<number>`. */
function jsonlTask(d: Record<string, unknown>, id: string): string {
  if (typeof d.task === 'string') return d.task;
  return id.replace(/[-_#]\d+$/, '');
}

export function parseJsonl(text: string, source = 'cases'): EvalCase[] {
  const out: EvalCase[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${source}:${i + 1}`;
    let d: unknown;
    try {
      d = JSON.parse(line);
    } catch (e) {
      fail(where, `invalid JSON (${(e as Error).message})`);
    }
    if (!isRecord(d)) fail(where, 'not an object');
    const id = typeof d.id === 'string' ? d.id : `${path.basename(source)}:${i + 1}`;
    out.push(
      checkCase(where, {
        id,
        task: jsonlTask(d, id),
        ...(typeof d.lang === 'string' ? { lang: d.lang } : {}),
        ...(typeof d.domain === 'string' ? { domain: d.domain } : {}),
        state: d.state,
        question: d.question,
        expected: 'answer' in d ? d.answer : d.expected,
      }),
    );
  });
  return out;
}

/** Reads a suite file by extension: `.toml` as jabr-style tasks, anything else as JSONL. */
export function loadSuiteFile(file: string): EvalCase[] {
  const text = fs.readFileSync(file, 'utf8');
  return file.endsWith('.toml') ? parseTomlSuite(text, file) : parseJsonl(text, file);
}

/** Every `.jsonl` / `.toml` file under `dir`, recursively, sorted (so runs list cases in one order). */
export function suiteFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(jsonl|toml)$/.test(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Reads a suite: a file (see loadSuiteFile) or a directory of them. From a directory, each task is
 * prefixed with its file's path below the directory, without extension (`en/code-rag:diff-tests`):
 * files written by different people may reuse a task id for different questions.
 */
export function loadSuite(file: string): EvalCase[] {
  if (!fs.statSync(file).isDirectory()) return loadSuiteFile(file);
  const files = suiteFiles(file);
  if (!files.length) fail(file, 'no .jsonl or .toml file in this directory');
  return files.flatMap((f) => {
    const prefix = path.relative(file, f).replace(/\.(jsonl|toml)$/, '').split(path.sep).join('/');
    return loadSuiteFile(f).map((c) => ({ ...c, task: `${prefix}:${c.task}` }));
  });
}
