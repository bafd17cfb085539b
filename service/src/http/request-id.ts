import { randomBytes } from 'node:crypto';

/** `req_` + 32 lowercase hex digits, the form the earlier clients read (reference §1). */
export function newRequestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}
