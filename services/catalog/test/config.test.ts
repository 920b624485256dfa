import { baseEnvShape, loadConfig } from '@market/shared/config';
import { catalogEnvShape, openUploadToken } from '../src/config';

const shape = { ...baseEnvShape, ...catalogEnvShape };
const production = {
  NODE_ENV: 'production',
  DATA_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe('catalog configuration', () => {
  it('refuses to start in production without OPEN_UPLOAD_TOKEN, and names it', () => {
    expect(() => openUploadToken(loadConfig(shape, production))).toThrow(/OPEN_UPLOAD_TOKEN/);
    expect(openUploadToken(loadConfig(shape, { ...production, OPEN_UPLOAD_TOKEN: 'a-real-upload-token-0123' }))).toBe('a-real-upload-token-0123');
  });

  it('leaves open upload without a token only when NODE_ENV=development says so by name', () => {
    expect(openUploadToken(loadConfig(shape, { NODE_ENV: 'development' }))).toBeUndefined();
    expect(() => openUploadToken(loadConfig(shape, { ...production, NODE_ENV: 'test' }))).toThrow(/NODE_ENV is test, not development: OPEN_UPLOAD_TOKEN must be set/);
    const { NODE_ENV: _unset, ...unset } = production;
    expect(() => openUploadToken(loadConfig(shape, unset))).toThrow(/NODE_ENV is production, not development: OPEN_UPLOAD_TOKEN must be set/);
    expect(openUploadToken(loadConfig(shape, { ...production, NODE_ENV: 'test', OPEN_UPLOAD_TOKEN: 'upload-token-for-tests' }))).toBe('upload-token-for-tests');
  });

  it('refuses a token too short to resist guessing', () => {
    expect(() => loadConfig(shape, { NODE_ENV: 'development', OPEN_UPLOAD_TOKEN: 'short' })).toThrow(/OPEN_UPLOAD_TOKEN/);
  });
});
