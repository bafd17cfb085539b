/** The bench's comparison server: which settings it runs with. */

/**
 * The comparison server's settings: `--compare K=V[,K=V…]`, or `none`; without it, inline runs off
 * when they are on (what they buy is then measured side by side), else no comparison.
 */
export function compareSettings(option: string | undefined, inlineOn: boolean): Record<string, string> | undefined {
  if (option === 'none') return undefined;
  if (option === undefined) return inlineOn ? { STRUCTQA_INLINE_MAX_TOKENS: '0' } : undefined;
  const env: Record<string, string> = {};
  for (const pair of option.split(',')) {
    const [key, value] = pair.split('=').map((part) => part.trim());
    if (!key?.startsWith('STRUCTQA_') || value === undefined) throw new Error(`--compare takes STRUCTQA_NAME=VALUE pairs separated by commas, got ${JSON.stringify(pair)}`);
    env[key] = value;
  }
  return env;
}
