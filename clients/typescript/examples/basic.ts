/**
 * Basic use of @structqa/client.
 *
 *   SERVICE_BASE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sq_... npm run example -w @structqa/client
 */

import {
  AllowanceExhaustedError,
  Client,
  DeadlineExceededError,
  RateLimitError,
  StateTooLongError,
  askInChunks,
  choice,
  noul,
  score,
} from '../src/index.js';

const client = new Client(); // SERVICE_BASE_URL, SERVICE_API_KEY; model legacy-latest; 10 s per attempt; 2 retries

const questions = {
  urgent: noul('Does the customer need help urgently?'),
  department: choice('Which team should handle this?', {
    billing: 'payments, invoices, refunds',
    technical: 'bugs, errors, outages',
    sales: null,
  }),
  frustration: score('How frustrated is the customer?', ['calm', 'frustrated but civil', 'very angry']),
};

try {
  const res = await client.systemOne(
    { state: 'I was charged twice this month and nobody answers my emails!', questions },
    { deadlineMs: 30_000 }, // every attempt and retry wait together
  );
  console.log('model', res.model, 'request', res.requestId);
  console.log('urgent', res.answers.urgent.noul); // number: P(true)
  console.log('department', res.answers.department.choice, res.answers.department.probabilities.billing);
  console.log('frustration', res.answers.frustration.score, res.answers.frustration.confidence);
  console.log('charged', res.usage.processed_tokens, 'processed tokens');
} catch (err) {
  if (err instanceof StateTooLongError) {
    console.log('too long; room per question:', err.questions); // or use askInChunks below
  } else if (err instanceof AllowanceExhaustedError) {
    console.log(`allowance used up; resets at ${err.resetsAt}`);
  } else if (err instanceof RateLimitError) {
    console.log(`still rate limited after retries; server asks for ${err.retryAfterMs} ms`);
  } else if (err instanceof DeadlineExceededError) {
    console.log('gave up at the deadline:', err.lastError);
  } else {
    throw err;
  }
}

// A long document: split on state_too_long, ask each chunk, combine.
const longText = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}: the order arrived late again.`).join('\n\n');
const { chunks, combined } = await askInChunks(client, { state: longText, questions }, { noul: 'max' });
console.log(`${chunks.length} chunk(s); urgent in any chunk: ${combined.answers.urgent.noul}`);

console.log((await client.models.list()).map((m) => m.name));
console.log(await client.usage());
