/**
 * TEST FIXTURE: a whitespace tokenizer (one id per word) so layout tests can count tokens by hand.
 * The real engine uses Hugging Face tokenizers; this only makes expected numbers obvious.
 */
import type { TextTokenizer } from '../../src/engine/tokenizer.js';

export class WordTokenizer implements TextTokenizer {
  readonly special = { cls: 1, sep: 2, mask: 3, pad: 0 };
  readonly maskText = '[MASK]';
  private readonly vocab = new Map<string, number>();

  async encode(texts: string[]): Promise<number[][]> {
    return texts.map((t) =>
      t
        .split(/\s+/)
        .filter(Boolean)
        .map((w) => {
          if (!this.vocab.has(w)) this.vocab.set(w, 100 + this.vocab.size);
          return this.vocab.get(w)!;
        }),
    );
  }
}
