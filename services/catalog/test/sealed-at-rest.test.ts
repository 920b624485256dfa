import { v7 as uuidv7 } from 'uuid';
import { DEV_KEYRING, SecretBox, sealedAt } from '@market/shared/crypto';
import { startService } from '@market/shared/service';
import { sealedInLegacyFormat, serviceEnv } from '@market/shared/testing';
import { api, startStack, type Stack } from '@market/testkit';
import { LISTING_CREDENTIALS_SEALED } from '../src/persistence/credentials-repository';
import { OPEN_UPLOAD_RAW_SEALED } from '../src/persistence/open-upload-repository';
import { catalogService } from '../src/service';
import { listingBody, newUser } from './support';

describe('listing credentials and open-upload bodies sealed at rest, bound to their row', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['catalog'] });
  });
  afterAll(() => stack?.stop());

  async function newListing(): Promise<string> {
    const res = await api(stack.url).post('/api/listings', listingBody(), newUser().token);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  it('binds values sealed in the old format to their row when the service starts, after which they open only there', async () => {
    const { db, schema } = stack.services.catalog!.ctx;
    const [listingId, otherListingId] = [await newListing(), await newListing()];
    const credentials = JSON.stringify({ account: 'acc-1', password: 'pw-1', extra: {} });
    await db.query(`INSERT INTO listing_credentials (listing_id, sealed) VALUES ($1, $2)`, [listingId, sealedInLegacyFormat(credentials)]);
    const uploadId = uuidv7();
    const rawUpload = JSON.stringify({ uploaderName: 'cs_alice', data: [{ account: 'acc-1', password: 'pw-1' }] });
    await db.query(
      `INSERT INTO open_uploads (id, received_at, uploader_name, upload_time, outcome, status, item_count, raw_sealed, redacted, result)
       VALUES ($1, now(), 'cs_alice', '2026-11-22 18:00:00', 'unmatched', 422, 1, $2, '{}', '{}')`,
      [uploadId, sealedInLegacyFormat(rawUpload)],
    );

    const restarted = await startService(catalogService, { ...serviceEnv(stack.env, 'catalog'), DB_SCHEMA: schema, PORT: '0' });
    await restarted.stop();

    const box = new SecretBox(DEV_KEYRING);
    const [{ sealed }] = await db.query(`SELECT sealed FROM listing_credentials WHERE listing_id = $1`, [listingId]);
    const [{ raw_sealed }] = await db.query(`SELECT raw_sealed FROM open_uploads WHERE id = $1`, [uploadId]);
    expect(sealed).toMatch(/^v2\.dev\./);
    expect(box.open(sealed, sealedAt(LISTING_CREDENTIALS_SEALED, listingId))).toBe(credentials);
    expect(box.open(raw_sealed, sealedAt(OPEN_UPLOAD_RAW_SEALED, uploadId))).toBe(rawUpload);

    expect(() => box.open(sealed, sealedAt(LISTING_CREDENTIALS_SEALED, otherListingId))).toThrow('cannot open sealed value');
    expect(() => box.open(sealed, sealedAt(OPEN_UPLOAD_RAW_SEALED, listingId))).toThrow('cannot open sealed value');
  });
});
