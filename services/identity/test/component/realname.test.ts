import { getMe, getRealnameStatus, startRealname } from '@market/contracts';
import type { UserIdentity } from '@market/shared/auth';
import { SecretBox, DEV_KEYRING, sealedAt } from '@market/shared/crypto';
import { asUser, startComponent, type Component } from '@market/testkit';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED } from '../../src/persistence/realname-repository';
import { smsLogin } from './support';

const VALID_ID = '11010519491231002X';
const OTHER_VALID_ID = '440524188001010014';

describe('identity alone: real-name verification', () => {
  let identity: Component;

  beforeAll(async () => {
    identity = await startComponent('identity', { env: { REALNAME_DAILY_ATTEMPTS: '3' } });
  });
  afterEach(() => identity.verify());
  afterAll(() => identity?.stop());

  const { outboxEvents, logIn: smsLogIn } = smsLogin(() => identity);
  /** A user registered through the SMS login, as the gateway would assert them afterwards. */
  const logIn = async () => {
    const { user } = await smsLogIn();
    return { as: asUser(user.id), user };
  };
  const start = (as: UserIdentity, real_name: string, id_number: string) => identity.call(startRealname, { body: { real_name, id_number }, as });
  const status = (as: UserIdentity) => identity.ok(getRealnameStatus, { as });

  it('shows a new user as unverified', async () => {
    const { as } = await logIn();
    expect(await status(as)).toEqual({ status: 'unverified', real_name_masked: null, id_number_masked: null, verified_at: null });
  });

  it('verifies a valid identity, shows it only masked and keeps it encrypted at rest', async () => {
    const { as, user } = await logIn();
    const started = await start(as, '张明', VALID_ID.toLowerCase());
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      status: 'verified',
      real_name_masked: '*明',
      id_number_masked: '1101**********002X',
      verified_at: expect.stringMatching(/Z$/),
    });
    expect(await status(as)).toEqual(started.body);
    expect((await identity.ok(getMe, { as })).realname_status).toBe('verified');

    const [row] = await identity.service.ctx.db.query(
      `SELECT real_name_sealed, id_number_sealed FROM realname_verifications WHERE user_id = $1`,
      [user.id],
    );
    expect(row.id_number_sealed).toMatch(/^v2\.dev\./);
    expect(JSON.stringify(row)).not.toContain('002X');
    expect(JSON.stringify(row)).not.toContain('张明');
    const secrets = new SecretBox(DEV_KEYRING);
    expect(secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, user.id))).toBe('张明');
    expect(secrets.open(row.id_number_sealed, sealedAt(ID_NUMBER_SEALED, user.id))).toBe(VALID_ID);

    const audit = (await outboxEvents('audit.recorded')).map((e) => e.data).find((d) => d.action === 'realname.start' && d.actor_id === user.id);
    expect(audit).toMatchObject({ detail: { outcome: 'verified' } });
    expect(JSON.stringify(audit)).not.toContain(VALID_ID);
  });

  it('refuses an id number whose check digit is wrong, or that is not 18 characters, with 400', async () => {
    const { as } = await logIn();
    for (const id of ['110105194912310021', '11010519491231002', '11010519491231002Y']) {
      const res = await start(as, '张明', id);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await status(as)).status).toBe('unverified');
  });

  it('lets a failed verification be retried, but never restarts a verified one (409)', async () => {
    const { as } = await logIn();
    const failed = await start(as, '王失败', VALID_ID);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', real_name_masked: '**败', verified_at: null });
    const retried = await start(as, '王五', OTHER_VALID_ID);
    expect(retried.body).toMatchObject({ status: 'verified', real_name_masked: '*五', id_number_masked: '4405**********0014' });
    const again = await start(as, '王五', OTHER_VALID_ID);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE');
  });

  it('lets one of two attempts racing for one user win; the other gets 409', async () => {
    const { as } = await logIn();
    const results = await Promise.all([start(as, '张明', VALID_ID), start(as, '李四', OTHER_VALID_ID)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    expect(await status(as)).toEqual(winner.body);
  });

  it('caps attempts per user per day with 429', async () => {
    const { as } = await logIn();
    for (let i = 0; i < 3; i++) expect((await start(as, '赵失败', VALID_ID)).body.status).toBe('failed');
    const capped = await start(as, '赵六', VALID_ID);
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
