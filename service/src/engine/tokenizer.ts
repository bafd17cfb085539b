/**
 * A checkpoint's tokenizer, read from the checkpoint's tokenizer.json and used without its
 * post-processor: the layout adds the special tokens itself.
 *
 * Two implementations of the same file, both Hugging Face's:
 * - `tokenizers` (native, Rust through napi): the reference. Its encode is asynchronous only, so every
 *   call pays a round trip to libuv's thread pool.
 * - `@huggingface/tokenizers` (pure JS, synchronous): no thread hop. Used for WordPiece tokenizers
 *   (the BERT family, the English checkpoint), where it is faster than the native call and gives the
 *   same ids; for Unigram (the multilingual checkpoint) it is about 8× slower, so the native one stays.
 * The JS one is taken only when it reproduces the native ids on PROBE_TEXTS at load; otherwise the
 * native one runs. Which one runs is shown per checkpoint in /readyz (docs/performance.md, 2026-11-24).
 */
import fs from 'node:fs';
import { Tokenizer as JsTokenizer } from '@huggingface/tokenizers';
import { Tokenizer as NativeTokenizer } from 'tokenizers';
import type { Manifest } from './manifest.js';

// The service parallelises across calls (the batcher), not inside one text: the native library's own
// thread pool would only add a thread hop per call and threads competing with ONNX Runtime for the
// cores. Read by the native side at each encode; an explicit setting in the environment wins.
process.env.TOKENIZERS_PARALLELISM ??= 'false';

export interface SpecialIds {
  cls: number;
  sep: number;
  mask: number;
  pad: number;
}

export interface TextTokenizer {
  readonly special: SpecialIds;
  /** The mask token's text; a literal occurrence in any text is replaced by a space. */
  readonly maskText: string;
  /** Token ids of each text, no special tokens added. */
  encode(texts: string[]): Promise<number[][]>;
  /** Which implementation encodes, for /readyz. */
  readonly implementation?: string;
}

export type TokenizerImplementation = 'native' | 'js';

/**
 * Texts (all of one encode call together) longer than this are encoded off the event loop even when
 * the JS implementation is chosen. About 1 ms of JS encoding on the 2-core reference machine; a full
 * 512-token window is about 2,000–3,000 characters, so only states that cannot fit go there.
 */
export const SYNC_ENCODE_MAX_CHARS = 16_384;

/** Texts the JS implementation must tokenize exactly as the native one before it is used. */
export const PROBE_TEXTS: readonly string[] = [
  'I was charged twice for my subscription this month, order #A-1234 (EUR 49.99).',
  'Café déjà vu: naïve façade, Ångström, Straße, İstanbul, ǅ, ﬁne ＡＢＣ１２３.',
  'e\u0301 composed vs é; zero\u200bwidth\u200djoiner; soft\u00adhyphen; nbsp\u00a0here; \ufeffbom',
  'tabs\tand\r\nnewlines\u2028line\u2029para \u0000\u0007\u001f controls \u0085 \ufffd',
  '日本語のテキスト、中文文本，한국어 텍스트 ภาษาไทย العربية עברית Ελληνικά русский हिन्दी',
  'emoji 👩‍👩‍👧 🇫🇷 ✅ 🙂 ♥︎ and symbols ™ © ® ° ± ≤ ≥ → ∞ € £ ¥ ₹',
  '{"user":"jane.doe@example.com","ip":"10.0.0.1","url":"https://x.io/a?b=c&d=e","uuid":"123e4567-e89b-12d3-a456-426614174000"}',
  'x'.repeat(150) + ' ' + 'supercalifragilisticexpialidocious'.repeat(4),
  "  leading and   repeated   spaces, don't stop; it's O'Brien's (ok)?!... [brackets] {braces} <angle> `code` ~tilde~",
  'special tokens as text: a [CLS] b [SEP] c [PAD] d [UNK] e [cls] x[SEP]y',
  'UPPER lower MiXeD 3.14159 1,000,000 2026-11-24T11:27:22Z v1.2.3-rc.4 C++ C# F# .NET node_modules/__init__.py',
];

export class CheckpointTokenizer implements TextTokenizer {
  readonly special: SpecialIds;
  readonly maskText: string;

  private constructor(
    private readonly native: NativeTokenizer,
    private readonly js: JsTokenizer | undefined,
    manifest: Manifest,
  ) {
    const id = (token: string): number => {
      const value = native.tokenToId(token);
      if (value === null || value === undefined) {
        throw new Error(`${manifest.name}: special token ${JSON.stringify(token)} is not in tokenizer.json`);
      }
      return value;
    };
    const s = manifest.special_tokens;
    this.special = { cls: id(s.cls), sep: id(s.sep), mask: id(s.mask), pad: id(s.pad) };
    this.maskText = s.mask;
  }

  /** Which implementation encodes (see the module comment). */
  get implementation(): TokenizerImplementation {
    return this.js ? 'js' : 'native';
  }

  /**
   * Loads tokenizer.json; `prefer: 'native'` keeps the reference implementation whatever the model
   * type (the equivalence tests compare the two through it).
   */
  static async fromFile(file: string, manifest: Manifest, opts: { prefer?: TokenizerImplementation } = {}): Promise<CheckpointTokenizer> {
    const text = fs.readFileSync(file, 'utf8'); // read once: both implementations load from it
    const native = NativeTokenizer.fromString(text);
    native.disableTruncation();
    native.disablePadding();
    const nativeOnly = new CheckpointTokenizer(native, undefined, manifest);
    if (opts.prefer === 'native') return nativeOnly;
    const json = JSON.parse(text) as { model?: { type?: string } };
    if (json.model?.type !== 'WordPiece') return nativeOnly;
    let candidate: CheckpointTokenizer;
    try {
      candidate = new CheckpointTokenizer(native, new JsTokenizer(json as object, {}), manifest);
    } catch {
      return nativeOnly; // a component the JS implementation does not know
    }
    return (await agreeOnProbes(nativeOnly, candidate)) ? candidate : nativeOnly;
  }

  async encode(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    // The native encoder rejects lone surrogates; they carry no text, so they read as U+FFFD (both ways).
    const clean = texts.map((t) => t.toWellFormed());
    // The JS encoder runs on the event loop: fine for the short texts of most calls, but a long state
    // (up to the 1 MB body limit) would hold every other call for as long as it takes. Long texts go
    // to the native encoder, which runs on libuv's thread pool (the same ids: checked at load).
    const chars = clean.reduce((n, t) => n + t.length, 0);
    if (this.js && chars <= SYNC_ENCODE_MAX_CHARS) return clean.map((t) => this.js!.encode(t, { add_special_tokens: false }).ids);
    const encodings = await this.native.encodeBatch(clean, { addSpecialTokens: false });
    return encodings.map((e) => e.getIds());
  }
}

/** Whether two tokenizers give the same ids for every probe text (and the same special ids). */
export async function agreeOnProbes(reference: TextTokenizer, candidate: TextTokenizer, probes: readonly string[] = PROBE_TEXTS): Promise<boolean> {
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((id, j) => id === b[j]);
  const [expected, got] = await Promise.all([reference.encode([...probes]), candidate.encode([...probes])]);
  const specials = (t: TextTokenizer) => [t.special.cls, t.special.sep, t.special.mask, t.special.pad];
  return same(specials(reference), specials(candidate)) && expected.every((ids, i) => same(ids, got[i]!));
}
