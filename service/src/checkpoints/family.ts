/**
 * What a checkpoint family (Laya, Decima) offers the commands: one module per family (laya.ts, decima.ts)
 * with the same small interface. `models import` asks each family whether it recognises a folder;
 * `models pull` asks each which of a repository's files its runtime would fetch, downloads them, and hands
 * the folder to the family's import.
 */
import type { Manifest } from '../engine/manifest.js';
import type { Progress } from './progress.js';

export type DecimaPrecision = 'fp32' | 'int8';

export interface ImportOptions {
  /** The checkpoint folder; only read, never written. */
  src: string;
  /** Root of checkpoint folders; the checkpoint lands in `<modelsDir>/<name>`. */
  modelsDir: string;
  /** Checkpoint name; default the source folder's name. */
  name: string;
  /** Python with training/requirements-import.txt installed (STRUCTQA_IMPORT_PYTHON; default python3). */
  python: string;
  languages?: string[];
  window?: number;
  processedTokenCap?: number;
  force?: boolean;
  /** Rows of the converter's own check against the family's runtime (default 48; 0 skips it). */
  checkRows?: number;
  /** Weights above this many MiB go to one external-data file next to the graph (default 1024). */
  externalDataMb?: number;
  /** Laya: also write model.int8.onnx (onnxruntime dynamic quantisation) and report its agreement with laya's fp32. */
  int8?: boolean;
  /** Rows of the int8 agreement check (default 200). */
  int8Rows?: number;
  /** A folder holding Decima's ONNX export as `onnx/<precision>/` (a repository's root): which one (default int8). */
  precision?: DecimaPrecision;
  /** Where the folder came from (a pull: the hub, the repository, the commit, the files). */
  hub?: HubSource;
  /** Load the result as the engine will before moving it into place (default true; `--no-check`). */
  verify?: boolean;
  /** The converter's traceback and the libraries' own messages. */
  verbose?: boolean;
  /** Steps, warnings and measured work (default: none). */
  progress?: Progress;
}

/** A pulled repository, as the manifest's provenance records it. */
export interface HubSource {
  endpoint: string;
  repo: string;
  revision: string;
  commit?: string;
  /** The repository's last change (the hub's listing), for a manifest's release date. */
  lastModified?: string;
  subfolder?: string;
  precision?: DecimaPrecision;
  files: { path: string; size: number; sha256: string }[];
}

export interface ImportResult {
  dir: string;
  manifest: Manifest;
  /** The int8 graph's agreement with laya's fp32 forward, when one was made. */
  int8?: { rows: number; argmax_agreement: number; max_abs_prob_diff: number; quantized_matmuls: number } | null;
  /** A Decima import: its converter's check against the package's own runtime on the same folder. */
  decimaCheck?: { rows: number; max_abs_prob_diff: number | null; reference?: string };
  /** What the family's runtime warns about when it loads this checkpoint (the import did the same). */
  warnings: string[];
}

/** What a family makes of a folder: one of its forms, or a folder one level off (and what to pass instead). */
export type Recognised = { form: string } | { misplaced: string };

/** A repository's files a family's runtime would fetch, and the folder among them to import. */
export interface PullPlan {
  family: CheckpointFamily;
  /** Human words for the log line ("Laya, PyTorch form", "Decima, onnx/int8"). */
  form: string;
  files: string[];
  /** The folder (relative to the download) that holds the checkpoint; '' for the root. */
  root: string;
  precision?: DecimaPrecision;
}

export interface CheckpointFamily {
  readonly name: string;
  /** The folder's file names (relative, '/'-separated) as one of this family's forms, or undefined. */
  recognise(names: readonly string[], opts: { precision?: DecimaPrecision }): Recognised | undefined;
  /** The files missing from a folder that `recognise` took for `form` (empty: complete). */
  missing(names: readonly string[], form: string): string[];
  /** Imports a folder this family recognised (throws the refusal of a folder one level off). */
  import(opts: ImportOptions): Promise<ImportResult>;
  /** Which of a repository's files (names relative to its root or subfolder) a pull fetches, or undefined when it is not this family's. */
  plan(names: readonly string[], opts: { precision?: DecimaPrecision; where: string }): PullPlan | undefined;
}
