import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiProblem, ok } from '@market/sdk';
import { Market, startStack, type Stack } from '@market/testkit';

/** Market's helpers go through the typed SDK, and every answer the SDK gets is held against the served document. */
describe('Market through the SDK', () => {
  let stack: Stack;
  let market: Market;
  let dir: string;
  let pairsFile: string;

  const checkedPairs = () => readFileSync(pairsFile, 'utf8').split('\n').filter(Boolean);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'market-sdk-'));
    pairsFile = path.join(dir, 'pairs.txt');
    // set before the first call: the kit records each operation × status pair it checked, once per process
    process.env.MARKET_OPENAPI_PAIRS_FILE = pairsFile;
    stack = await startStack({ services: ['identity'], serviceEnv: { identity: { SMS_DAILY_LIMIT_PER_IP: '100000' } } });
    market = new Market(stack);
  }, 90_000);

  afterAll(async () => {
    delete process.env.MARKET_OPENAPI_PAIRS_FILE;
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs a user in through the SDK, each answer checked against the document, with one client per token', async () => {
    const user = await market.user();
    expect(checkedPairs()).toEqual(expect.arrayContaining(['sendSmsCode 200', 'loginWithSms 200']));

    const client = market.sdk(user.token);
    expect(market.sdk(user.token)).toBe(client);
    expect(market.sdk()).not.toBe(client);
    expect((await ok(client.api.GET('/api/me'))).id).toBe(user.id);
  });

  it("throws a refused call's problem as an ApiProblem, after checking it too", async () => {
    const refused = await ok(market.sdk().api.POST('/api/auth/sms/send', { body: { phone: 'not-a-phone' } })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(checkedPairs()).toContain('sendSmsCode 400');
  });
});
