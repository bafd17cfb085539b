/**
 * Request and answer schemas of POST /v1/systemone (contract §3, reference §2–§3). The same schemas
 * validate requests and generate /openapi.json.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { labelClash } from '../engine/labels.js';

/**
 * A keyword the schemas' validator must know (`schemaKeywords`): a list-form choice's labels are
 * distinct as laya compares them (Python's ==, so 1, 1.0 and true are one label) and as the answer keys
 * them ("1" and 1 would be one key). JSON Schema's uniqueItems compares JSON values, which is neither.
 */
export const DISTINCT_LABELS = 'x-distinct-labels';

interface KeywordError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

/** Ajv keyword definitions for the schemas below (register them on any Ajv that compiles them). */
export const schemaKeywords = [
  {
    keyword: DISTINCT_LABELS,
    type: 'array' as const,
    schemaType: 'boolean' as const,
    errors: true,
    validate: function distinct(this: unknown, on: boolean, data: unknown[], _parent: unknown, cxt?: { instancePath: string }): boolean {
      const clash = on ? labelClash(data) : undefined;
      if (!clash) return true;
      const errors: KeywordError[] = [{
        instancePath: `${cxt?.instancePath ?? ''}/${clash.index}`,
        keyword: DISTINCT_LABELS,
        message: clash.reason === 'equal'
          ? `Label ${clash.index} repeats label ${clash.first}: the labels are the answer keys, so every option needs its own (1, 1.0 and true are one label, as laya compares them)`
          : `Label ${clash.index} has the same answer key as label ${clash.first} (${JSON.stringify(clash.key)}): every option needs its own key`,
        params: { first: clash.first, reason: clash.reason },
      }];
      (distinct as unknown as { errors: KeywordError[] }).errors = errors;
      return false;
    },
  },
];

/** Instructions and descriptions: string, object, array or null (reference §2.1). */
const Content = Type.Union([Type.String(), Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown()), Type.Null()], {
  description: 'Text, or a JSON object/array rendered as compact JSON for the model.',
});

const Instructions = Type.Optional(Content);

/** A score level: a description, or (laya's form) a bare number or boolean, rendered and echoed as laya does. */
const Level = Type.Union([...Content.anyOf, Type.Number(), Type.Boolean()], {
  description:
    "Text, or a JSON object/array rendered as compact JSON for the model. Also laya's form: a number or boolean, " +
    'which the model reads and the legend echoes as laya writes it (3 → "3", 3.0 → "3.0", true → "true").',
});

export const NoulQuestion = Type.Object(
  {
    type: Type.Literal('noul'),
    instructions: Instructions,
    criteria: Type.Optional(
      Type.Union([
        Type.Object({ true: Type.Optional(Content), false: Type.Optional(Content) }, { additionalProperties: true }),
        Type.Null(),
      ]),
    ),
  },
  { title: 'Noul', description: 'Probability that the statement holds.', additionalProperties: true },
);

const CriteriaMap = Type.Record(Type.String({ minLength: 1 }), Content, {
  // TypeBox drops the key's minLength from a Record's schema: say it with propertyNames.
  propertyNames: { minLength: 1 },
  minProperties: 2,
  maxProperties: 255,
  description: 'Option name → description (null: interpret by the name alone). 2–255 options.',
});

/**
 * Laya's list form: option names without descriptions (an extension for callers moving over from a
 * Laya server; the official clients never send it). Keyed, laid out and answered as laya 0.4.15 does
 * (engine/labels.ts): a number or boolean label is keyed as JSON writes a Python dict key ("3", "3.0",
 * "true") and `choice` carries the label itself.
 */
const CriteriaList = Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  minItems: 2,
  maxItems: 255,
  [DISTINCT_LABELS]: true,
  description:
    "Laya's list form: option names without descriptions, 2–255 (strings, numbers or booleans; answer keys as laya writes them: 3 → \"3\", 3.0 → \"3.0\", true → \"true\"). " +
    'Labels Python holds equal (1, 1.0, true) or that share an answer key ("1" and 1) are refused.',
});

export const ChoiceQuestion = Type.Object(
  {
    type: Type.Literal('choice'),
    instructions: Instructions,
    // A map keeps exactly the 422 it had before the list form: a union's error is its branch of the
    // value's JSON type (http/validation.ts), so a too-short map is still "at least 2 items".
    criteria: Type.Union([CriteriaMap, CriteriaList], {
      description: 'Option name → description, or (laya\'s list form) a list of option names.',
    }),
  },
  { title: 'Choice', description: 'A distribution over named options.', additionalProperties: true },
);

export const ScoreQuestion = Type.Object(
  {
    type: Type.Literal('score'),
    instructions: Instructions,
    criteria: Type.Array(Level, {
      minItems: 2,
      maxItems: 10,
      description: 'Level descriptions, low → high; the level is the zero-based index. 2–10 levels.',
    }),
  },
  { title: 'Score', description: 'An expected level.', additionalProperties: true },
);

/** oneOf + discriminator (not TypeBox's anyOf) so that a bad `type` yields one clear error. */
export const Question = Type.Unsafe<Static<typeof NoulQuestion> | Static<typeof ChoiceQuestion> | Static<typeof ScoreQuestion>>({
  type: 'object',
  discriminator: { propertyName: 'type' },
  oneOf: [NoulQuestion, ChoiceQuestion, ScoreQuestion],
});

export const SystemOneRequest = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1, description: 'Model name or alias; default legacy-latest.' })),
    state: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown())], {
      description: 'The text the questions are about: a string, or a JSON object/array.',
    }),
    questions: Type.Record(Type.String(), Question, {
      minProperties: 1,
      description: 'Question name (echoed as the answer key) → question. At most 32 per call.',
    }),
  },
  { additionalProperties: true },
);
export type SystemOneRequest = Static<typeof SystemOneRequest>;

const Probabilities = Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 1 }));

export const NoulAnswer = Type.Object({ type: Type.Literal('noul'), noul: Type.Number({ minimum: 0, maximum: 1 }) }, { title: 'NoulAnswer' });
export const ChoiceAnswer = Type.Object(
  {
    type: Type.Literal('choice'),
    choice: Type.Union([Type.String(), Type.Number(), Type.Boolean()], {
      description: "The most probable option's name; for laya's list form, its label as sent (3, 3.0, true), as laya answers.",
    }),
    probabilities: Probabilities,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { title: 'ChoiceAnswer' },
);
export const ScoreAnswer = Type.Object(
  {
    type: Type.Literal('score'),
    score: Type.Number(),
    legend: Type.Record(Type.String(), Type.Unknown()),
    probabilities: Probabilities,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { title: 'ScoreAnswer' },
);

export const SystemOneResponse = Type.Object({
  model: Type.String({ description: 'The checkpoint that answered.' }),
  answers: Type.Record(Type.String(), Type.Union([NoulAnswer, ChoiceAnswer, ScoreAnswer])),
  usage: Type.Object({
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    processed_tokens: Type.Integer({ description: 'rows × longest sequence (a row per question, or per group of a split choice question\'s options): the amount charged.' }),
  }),
});

export const ModelList = Type.Object({
  models: Type.Array(
    Type.Object({ name: Type.String(), description: Type.String(), release_date: Type.String({ format: 'date' }) }),
  ),
});

export const ErrorBody = Type.Object(
  {
    detail: Type.Union([
      Type.Object({ error_type: Type.String(), message: Type.String() }, { additionalProperties: true }),
      Type.Array(
        Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() }),
      ),
    ]),
  },
  { title: 'Error' },
);

export function errorResponses(statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
