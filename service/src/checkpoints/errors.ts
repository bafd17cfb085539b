/** Why a pull or an import stopped, in words meant for the operator. */
export class CheckpointError extends Error {
  /** The hub's HTTP status, when the hub answered. */
  readonly status?: number;
  /** A transient failure (network, 429, 5xx, a short body): another attempt may succeed. */
  readonly retryable: boolean;
  /** The input itself is refused (the checkpoint folder, the repository's content, an argument): `structqa models` exits 2. */
  readonly refused: boolean;

  constructor(message: string, opts: { status?: number; retryable?: boolean; refused?: boolean } = {}) {
    super(message);
    this.name = 'CheckpointError';
    this.status = opts.status;
    this.retryable = opts.retryable ?? false;
    this.refused = opts.refused ?? false;
  }
}

/** A refusal of the input: one line, exit status 2 on the command line. */
export function refusal(message: string): CheckpointError {
  return new CheckpointError(message, { refused: true });
}

export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message}: ${cause.message}` : e.message;
  }
  return String(e);
}
