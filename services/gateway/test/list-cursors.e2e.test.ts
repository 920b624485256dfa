import { randomInt, randomUUID } from 'node:crypto';
import { allRoutes, type AnyRoute } from '@market/contracts';
import { checkedFetch, api, eventually, mintToken, startStack, type ApiResponse, type Stack } from '@market/testkit';

const STARTED = ['identity', 'catalog', 'admin'] as const;

/** Every list of the contract: its query takes the page cursor. */
const lists = allRoutes.filter((route) => route.method === 'get' && route.query?.shape?.cursor !== undefined);

const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Cursors no list ever handed out, each of a kind that once reached Postgres or could. */
function forgedCursors(): string[] {
  const id = randomUUID();
  const o = 'created_at,id:desc';
  return [
    '2020',
    'garbage',
    '!!!',
    forge({ v: '2020', id }),
    forge({ v: '2020-13-45T00:00:00.000Z', id }),
    forge({ o, k: ['2020', id] }),
    forge({ o, k: ['2026-11-22T10:00:00.000000Z', 'not-a-uuid'] }),
    forge({ o, k: ["2026-11-22T10:00:00.000000Z'; DROP TABLE users; --", id] }),
    forge({ o, k: ['2026-02-30T00:00:00.000000Z', id] }),
    forge({ o, k: ['+275760-09-13T00:00:00.000000Z', id] }),
    forge({ o, k: [1_700_000_000_000, id] }),
    forge({ o, k: [] }),
    forge({ o: 'hourly_price,id:asc', k: ['99999999999', id] }),
  ];
}

/** A real cursor changed in ways a client might try: cut short, padded, or its position rewritten. */
function tampered(cursor: string): string[] {
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
  const rewrite = (change: (text: string) => string) => {
    const walk = (value: unknown): unknown =>
      typeof value === 'string' ? change(value) : Array.isArray(value) ? value.map(walk) : value;
    return forge(Object.fromEntries(Object.entries(decoded).map(([key, value]) => [key, walk(value)])));
  };
  return [
    cursor.slice(0, -4),
    `${cursor}AAAA`,
    rewrite((text) => `${text}0`),
    rewrite((text) => text.replace(/^(\d{4})-\d\d/, '$1-13')),
    forge(Object.fromEntries(Object.entries(decoded).slice(1))),
  ];
}

describe('list cursors through the gateway', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let userToken: string;
  const adminToken = mintToken('admin');

  const tokenFor = (route: AnyRoute) => (route.auth === 'admin' ? adminToken : route.auth === 'user' ? userToken : undefined);

  beforeAll(async () => {
    stack = await startStack({ services: [...STARTED] });
    client = api(stack.url);
    // three users, three online listings (each approval an audit entry) and two awaiting review:
    // every list below has more than one page at limit=1
    const tokens: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const phone = `137${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
      const sent = await client.post('/api/auth/sms/send', { phone });
      const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
      expect(login.status).toBe(200);
      tokens.push(login.body.access_token);
    }
    userToken = tokens[0]!;
    for (let i = 0; i < 5; i += 1) {
      const created = await client.post(
        '/api/listings',
        { title: `listing ${i}`, game: 'cursor-game', server: 's', description: 'd', hourly_price: 500 + (i % 2) * 100, min_hours: 1, max_hours: 24, deposit: 1000 },
        userToken,
      );
      expect(created.status).toBe(201);
      expect((await client.post(`/api/listings/${created.body.id}/submit-review`, {}, userToken)).status).toBe(200);
      if (i < 3) expect((await client.post(`/api/admin/listings/${created.body.id}/approve`, {}, adminToken)).status).toBe(200);
    }
    // two more admins, and two refused open-upload deliveries (each is recorded)
    for (let i = 0; i < 2; i += 1) {
      const username = `cursor_admin_${randomInt(0, 1_000_000_000)}`;
      const added = await client.post('/api/admin/admins', { username, nickname: username, password: 'Cursor-test-pass-1' }, adminToken);
      expect(added.status).toBe(201);
      const refused = await checkedFetch(`${stack.url}/api/open/listing-uploads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      expect(refused.status).toBe(400);
    }
    await eventually(
      () => client.get('/api/admin/audit-logs?limit=100', adminToken),
      (res) => res.status === 200 && res.body.items.length >= 3,
    );
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
  });

  /** The lists of the started services. */
  async function servedLists(): Promise<AnyRoute[]> {
    const served: AnyRoute[] = [];
    for (const route of lists) {
      if (!(STARTED as readonly string[]).includes(route.service)) continue;
      const res = await client.get(`${route.path}?limit=1`, tokenFor(route));
      expect({ route: route.id, status: res.status }).toEqual({ route: route.id, status: 200 });
      served.push(route);
    }
    return served;
  }

  it('finds the lists built so far', async () => {
    expect((await servedLists()).map((r) => r.id).sort()).toEqual(
      [
        'adminListListings',
        'adminListOpenUploads',
        'adminListPendingListings',
        'adminListUsers',
        'listAdmins',
        'listAuditLogs',
        'listListings',
        'listSellerListings',
      ].sort(),
    );
  });

  it('answers 400 VALIDATION_FAILED on query.cursor to forged and tampered cursors on every list', async () => {
    const failures: string[] = [];
    for (const route of await servedLists()) {
      const first = await client.get(`${route.path}?limit=1`, tokenFor(route));
      expect(first.body.next_cursor).toEqual(expect.any(String));
      for (const cursor of [...forgedCursors(), ...tampered(first.body.next_cursor)]) {
        const res = await client.get(`${route.path}?limit=1&cursor=${encodeURIComponent(cursor)}`, tokenFor(route));
        const ok = res.status === 400 && res.body.code === 'VALIDATION_FAILED' && res.body.errors?.[0]?.path === 'query.cursor';
        if (!ok) failures.push(`${route.id} cursor=${cursor}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('pages through every list one item at a time, returning each item exactly once in list order', async () => {
    const sorts = (route: AnyRoute) => (route.id === 'listListings' ? ['newest', 'price_asc', 'price_desc'] : [undefined]);
    for (const route of await servedLists()) {
      for (const sort of sorts(route)) {
        const filter = sort ? `&sort=${sort}` : '';
        const all = await client.get(`${route.path}?limit=100${filter}`, tokenFor(route));
        expect(all.body.next_cursor).toBeNull();
        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const res: ApiResponse = await client.get(`${route.path}?limit=1${filter}${cursor ? `&cursor=${cursor}` : ''}`, tokenFor(route));
          expect(res.status).toBe(200);
          paged.push(...res.body.items.map((item: { id: string }) => item.id));
          cursor = res.body.next_cursor;
        } while (cursor !== null && paged.length <= all.body.items.length);
        expect({ route: route.id, sort, ids: paged }).toEqual({ route: route.id, sort, ids: all.body.items.map((item: { id: string }) => item.id) });
        expect(paged.length).toBeGreaterThan(1);
      }
    }
  });
});
