/**
 * A checkpoint's tokenizer: Hugging Face `tokenizers` (native) loaded from the checkpoint's
 * tokenizer.json, used without its post-processor: the layout adds the special tokens itself.
 */
import { Tokenizer } from 'tokenizers';
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
}

export class HfTokenizer implements TextTokenizer {
  readonly special: SpecialIds;
  readonly maskText: string;

  private constructor(private readonly tokenizer: Tokenizer, manifest: Manifest) {
    const id = (token: string): number => {
      const value = tokenizer.tokenToId(token);
      if (value === null || value === undefined) {
        throw new Error(`${manifest.name}: special token ${JSON.stringify(token)} is not in tokenizer.json`);
      }
      return value;
    };
    const s = manifest.special_tokens;
    this.special = { cls: id(s.cls), sep: id(s.sep), mask: id(s.mask), pad: id(s.pad) };
    this.maskText = s.mask;
  }

  static fromFile(file: string, manifest: Manifest): HfTokenizer {
    const tokenizer = Tokenizer.fromFile(file);
    tokenizer.disableTruncation();
    tokenizer.disablePadding();
    return new HfTokenizer(tokenizer, manifest);
  }

  async encode(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    // The native encoder rejects lone surrogates; they carry no text, so they read as U+FFFD.
    const clean = texts.map((t) => t.toWellFormed());
    const encodings = await this.tokenizer.encodeBatch(clean, { addSpecialTokens: false });
    return encodings.map((e) => e.getIds());
  }
}
