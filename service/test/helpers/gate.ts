/**
 * TEST FIXTURE: a Gate that knows one key and never limits, counting commits and releases, for
 * tests of the HTTP layer and the engine. The real Gate (accounts, allowance, limits) has its own tests.
 */
import type { Account, Admission, Charge, Entry, Gate } from '../../src/accounts/types.js';
import { InvalidApiKey, MissingApiKey } from '../../src/errors.js';

export const TEST_KEY = 'sqa_test_fixture_key';

export class FixtureGate implements Gate {
  commits: Charge[] = [];
  releases = 0;
  private readonly account: Account = {
    id: 'acct_test',
    name: 'test',
    limits: { monthlyAllowance: 1e12, requestsPerSecond: 1e9, processedTokensPerSecond: 1e12, inFlight: 1e9 },
  };

  async authenticate(authorization: string | undefined): Promise<Account> {
    if (!authorization) throw new MissingApiKey();
    if (authorization !== `Bearer ${TEST_KEY}`) throw new InvalidApiKey();
    return this.account;
  }

  async enter(): Promise<Entry> {
    return { admit: () => this.admit(), leave: async () => undefined };
  }

  async admit(): Promise<Admission> {
    return {
      commit: async (charge) => {
        this.commits.push(charge);
      },
      release: async () => {
        this.releases++;
      },
    };
  }

  async close(): Promise<void> {}
}
