import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { dropBusObjects, dropSchemas, internalKeysFor, testEnv, uniqueName } from '@market/shared/testing';

/** Starts the identity process itself (src/main.ts) and reports how it ended. */
function runIdentity(env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../src/main.ts')], {
      env: { PATH: process.env.PATH, ...env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('identity in production', () => {
  it('refuses to start with an incomplete provider configuration, naming exactly what is missing', async () => {
    const schema = uniqueName('t_identity_prod');
    const env = await testEnv({
      NODE_ENV: 'production',
      DB_SCHEMA: schema,
      ...internalKeysFor('identity'),
      USER_TOKEN_SECRET: randomBytes(32).toString('hex'),
      SMS_CODE_SECRET: randomBytes(32).toString('hex'),
      DATA_ENCRYPTION_KEYS: `prod1:${randomBytes(32).toString('base64')}`,
      SMS_PROVIDER: 'tencent',
      TENCENT_SECRET_ID: 'AKIDproduction',
      TENCENT_SMS_SIGN_NAME: '租号市场',
      REALNAME_VERIFIER: 'aliyun',
      ALIYUN_ACCESS_KEY_SECRET: 'aliyun-production-secret',
      ALIYUN_CLOUDAUTH_ENDPOINT: 'http://127.0.0.1:9',
    });
    try {
      const { code, stderr } = await runIdentity(env);
      expect(code).toBe(1);
      expect(stderr).toBe(
        [
          'identity failed to start: identity provider configuration is incomplete:',
          '  SMS_PROVIDER=tencent needs TENCENT_SECRET_KEY, TENCENT_SMS_SDK_APP_ID, TENCENT_SMS_TEMPLATE_ID',
          '  REALNAME_VERIFIER=aliyun needs ALIYUN_ACCESS_KEY_ID',
          '  ALIYUN_CLOUDAUTH_ENDPOINT must be https outside development',
          '',
        ].join('\n'),
      );
    } finally {
      await dropSchemas(String(env.DATABASE_URL), [schema]);
      await dropBusObjects(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE));
    }
  }, 60_000);
});
