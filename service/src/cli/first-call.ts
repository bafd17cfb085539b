/**
 * The call a newcomer can paste right after `npm start`: the real address (PORT, HOST) and the real
 * key file (STRUCTQA_DATA_DIR / STRUCTQA_FIRST_KEY_FILE), so it works whatever they were set to.
 * Written to stderr as plain text beside the JSON log on stdout.
 */
import fs from 'node:fs';

/** Where a client on this machine reaches a server listening on `host`:`port`. */
export function localUrl(host: string, port: number): string {
  const reachable = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Single-quoted for a POSIX shell. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export const FIRST_CALL_BODY = {
  model: 'legacy-latest',
  state: 'I was charged twice for my subscription this month.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for money back?' },
    team: { type: 'choice', instructions: 'Which team should handle it?', criteria: { billing: 'payments, invoices', technical: 'bugs, errors', sales: null } },
  },
};

export function firstCallHint(url: string, keyFile: string, defaultAccount: string): string {
  const key = fs.existsSync(keyFile)
    ? `KEY=$(grep -o 'sqa_live_[A-Za-z0-9]*' ${quote(keyFile)})`
    : `KEY=$(npx structqa keys create --account ${quote(defaultAccount)})   # no key file at ${keyFile}`;
  return [
    '',
    `structqa listens on ${url} (GET ${url}/readyz answers 200 once the checkpoints are loaded). A first call:`,
    '',
    `  ${key}`,
    `  curl -s ${url}/v1/systemone -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\`,
    `    -d ${quote(JSON.stringify(FIRST_CALL_BODY))}`,
    '',
    '',
  ].join('\n');
}
