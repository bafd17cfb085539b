/**
 * Model names (contract §4, interface §2.4): which names exist, which select a checkpoint and which
 * route by the state's language. Names come from configuration; descriptions and dates from the
 * checkpoints' manifests.
 */
import { UnknownModel } from '../errors.js';
import type { Config } from '../config.js';
import type { Manifest } from '../engine/manifest.js';
import { detectLanguage } from './language.js';

export const DEFAULT_MODEL = 'legacy-latest';

export interface Route {
  /** The checkpoint that will answer. */
  checkpoint: string;
  /**
   * ISO 639-1 code of the state. Routing by language detects it at once; a call that names its
   * checkpoint detects it only when something reads it (calibration by language does).
   */
  readonly language: string;
  routedBy: 'language' | 'name';
}

export interface ModelEntry {
  name: string;
  description: string;
  release_date: string;
}

export class ModelRouter {
  constructor(private readonly models: Config['models']) {}

  /** Every name a request may use, in the order /v1/models lists them. */
  names(): string[] {
    return [...this.models.routingAliases, ...Object.keys(this.models.checkpoints), ...Object.keys(this.models.checkpointAliases)];
  }

  route(requested: string | undefined, state: unknown): Route {
    const name = requested ?? DEFAULT_MODEL;
    if (this.models.routingAliases.includes(name)) {
      const detected = detectLanguage(state);
      return {
        checkpoint: detected.english ? this.models.englishCheckpoint : this.models.multilingualCheckpoint,
        language: detected.language,
        routedBy: 'language',
      };
    }
    // Own keys only: a name such as `__proto__` or `constructor` must not reach Object.prototype.
    const { checkpoints, checkpointAliases } = this.models;
    const checkpoint = Object.hasOwn(checkpoints, name) ? name : Object.hasOwn(checkpointAliases, name) ? checkpointAliases[name] : undefined;
    if (!checkpoint) throw new UnknownModel(name, this.names());
    let language: string | undefined;
    return {
      checkpoint,
      routedBy: 'name',
      get language() {
        return (language ??= detectLanguage(state).language);
      },
    };
  }

  list(manifests: Map<string, Manifest>): ModelEntry[] {
    const english = manifests.get(this.models.englishCheckpoint);
    const date = (m?: Manifest) => m?.release_date ?? '1970-01-01';
    const entries: ModelEntry[] = this.models.routingAliases.map((name) => ({
      name,
      description:
        `Routes by the state's language: English → ${this.models.englishCheckpoint}, ` +
        `other languages → ${this.models.multilingualCheckpoint}.`,
      release_date: date(english),
    }));
    for (const name of Object.keys(this.models.checkpoints)) {
      entries.push({ name, description: manifests.get(name)?.description ?? name, release_date: date(manifests.get(name)) });
    }
    for (const [name, target] of Object.entries(this.models.checkpointAliases)) {
      entries.push({ name, description: `Alias of ${target}. ${manifests.get(target)?.description ?? ''}`.trim(), release_date: date(manifests.get(target)) });
    }
    return entries;
  }
}
