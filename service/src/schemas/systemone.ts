/**
 * Request and answer schemas of POST /v1/systemone (contract §3, reference §2–§3). The same schemas
 * validate requests and generate /openapi.json.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Instructions and descriptions: string, object, array or null (reference §2.1). */
const Content = Type.Union([Type.String(), Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown()), Type.Null()], {
  description: 'Text, or a JSON object/array rendered as compact JSON for the model.',
});

const Instructions = Type.Optional(Content);

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

export const ChoiceQuestion = Type.Object(
  {
    type: Type.Literal('choice'),
    instructions: Instructions,
    criteria: Type.Record(Type.String({ minLength: 1 }), Content, {
      // TypeBox drops the key's minLength from a Record's schema: say it with propertyNames.
      propertyNames: { minLength: 1 },
      minProperties: 2,
      maxProperties: 255,
      description: 'Option name → description (null: interpret by the name alone). 2–255 options.',
    }),
  },
  { title: 'Choice', description: 'A distribution over named options.', additionalProperties: true },
);

export const ScoreQuestion = Type.Object(
  {
    type: Type.Literal('score'),
    instructions: Instructions,
    criteria: Type.Array(Content, {
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
    choice: Type.String(),
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
