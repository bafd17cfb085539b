/**
 * Numbers as Python writes them after `json.loads` (laya's runtime and our training code are Python):
 * what render.ts and labels.ts write into the checkpoints' text and into laya-form answers.
 */

/**
 * Python's `repr(float)`: the shortest digits that round-trip (the same digits JavaScript prints),
 * positional from 1e-4 up to 1e16, otherwise scientific with a signed, two-digit-minimum exponent
 * (`1e-05`, `1.5e+16`); integral values keep `.0`. Infinity reads as json.dumps writes it.
 */
export function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${digits.length > 1 ? '.' + digits.slice(1) : ''}e${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
}

/**
 * A JSON number as Python writes it after `json.loads`: from its source text when known (an integer
 * literal stays an exact int, anything with a fraction or exponent is a float), else from the value
 * (integral values below 2^53 as ints, others as floats).
 */
export function pythonNumber(value: number, source?: string): string {
  if (source !== undefined) {
    if (/^-?\d+$/.test(source)) return BigInt(source).toString();
    return pythonFloat(Number(source));
  }
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 53) return String(value === 0 ? 0 : value);
  return pythonFloat(value);
}
