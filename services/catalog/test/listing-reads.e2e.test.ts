import { v7 as uuidv7 } from 'uuid';
import { api, eventually, startStack, type Stack } from '@market/testkit';
import { eventsSent, listingMaker, newAdmin, newUser, type Caller } from './support';

/** The public read path: text search semantics over the trigram indexes, and the shared cache of answers. */
const MICRO_CACHE_MS = 1000;

describe('public listing reads', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: Caller;

  beforeAll(async () => {
    // the gateway's micro-cache on (ADR 0068), for a second rather than the default 250 ms: the repeats
    // below must reach the gateway within the bound, which a loaded CI machine once stretched past 250 ms
    stack = await startStack({ services: ['catalog', 'admin'], env: { GATEWAY_MICRO_CACHE_MS: String(MICRO_CACHE_MS) } });
    client = api(stack.url);
    admin = await newAdmin(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const { create, online } = listingMaker(() => client, () => admin);

  const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((l) => l.id).sort();

  describe('text search', () => {
    const game = `search-${uuidv7()}`;
    const shown: Array<{ id: string; title: string; description: string | null }> = [];

    beforeAll(async () => {
      const owner = newUser();
      const texts: Array<[string, string | null]> = [
        ['王者荣耀 荣耀王者 全英雄', '皮肤 200+'],
        ['和平精英 满级账号', '含限定皮肤 M416'],
        ['Genshin Impact AR60', '原神 满命 雷电将军'],
        ['League of Legends 钻石', null],
        ['原神 星元', 'ar 58, five-star'],
        ['abc_def 100%', '特殊字符 \\ 反斜杠'],
      ];
      for (const [title, description] of texts) shown.push(await online(owner, { game, title, description }));
      const offline = await online(owner, { game, title: '王者 下架 Genshin' });
      expect((await client.post(`/api/admin/listings/${offline.id}/offline`, { reason: 'x' }, admin.token)).status).toBe(200);
      await create(owner, { game, title: '王者 草稿 Genshin' });
    });

    /** What the search promises: online listings whose title or description holds the text, in any case. */
    const expected = (q: string) =>
      shown
        .filter((l) => [l.title, l.description ?? ''].some((text) => text.toLowerCase().includes(q.toLowerCase())))
        .map((l) => l.id)
        .sort();

    it.each([
      ['one Chinese character', '王'],
      ['two Chinese characters', '王者'],
      ['two characters of a description only', '皮肤'],
      ['a Chinese phrase', '荣耀王者'],
      ['a phrase of a description', '雷电将军'],
      ['a phrase across a space', '满级账号'],
      ['one Latin letter', 'e'],
      ['two letters in another case', 'AR'],
      ['a word in another case', 'LEGENDS'],
      ['letters and digits', 'ar60'],
      ['a percent sign, literally', '%'],
      ['an underscore, literally', '_'],
      ['a backslash, literally', '\\'],
      ['text found nowhere', '无此账号xyz'],
    ])('finds exactly the online listings holding %s (%s)', async (_label, q) => {
      const res = await client.get(`/api/listings?game=${encodeURIComponent(game)}&limit=100&q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected(q));
      const everywhere = await client.get(`/api/listings?limit=100&q=${encodeURIComponent(q)}`);
      expect(ids(everywhere)).toEqual(expect.arrayContaining(expected(q)));
    });

    it('plans text queries on the trigram indexes, and of one or two characters on the grams index, once there are many listings', async () => {
      const rolledBack = new Error('rolled back');
      let plan = '';
      let shortPlan = '';
      // thousands of rows and fresh statistics, only for the length of a transaction that is undone
      await stack.services.catalog!.ctx.db
        .transaction(async (manager) => {
          await manager.query(
            `INSERT INTO listings (id, owner_id, title, game, description, hourly_price, min_hours, deposit, status, review_status, created_at, updated_at)
             SELECT gen_random_uuid(), gen_random_uuid(), '账号 #' || n, 'filler', '描述 ' || n, 100 + n, 1, 0, 'online', 'approved', now(), now()
             FROM generate_series(1, 5000) AS n`,
          );
          await manager.query('ANALYZE listings');
          const rows: Array<{ 'QUERY PLAN': string }> = await manager.query(
            `EXPLAIN SELECT id FROM listings WHERE status = 'online' AND (title ILIKE $1 OR description ILIKE $1)`,
            ['%荣耀王者%'],
          );
          plan = rows.map((r) => r['QUERY PLAN']).join('\n');
          const short: Array<{ 'QUERY PLAN': string }> = await manager.query(
            `EXPLAIN SELECT id FROM listings WHERE status = 'online' AND (title ILIKE $1 OR description ILIKE $1)
               AND listing_text_grams(title, description) @> ARRAY[lower($2::text)]`,
            ['%荣耀%', '荣耀'],
          );
          shortPlan = short.map((r) => r['QUERY PLAN']).join('\n');
          throw rolledBack;
        })
        .catch((err) => {
          if (err !== rolledBack) throw err;
        });
      expect(plan).toContain('Bitmap Index Scan on listings_online_title_trgm');
      expect(plan).toContain('Bitmap Index Scan on listings_online_description_trgm');
      expect(shortPlan).toContain('Bitmap Index Scan on listings_online_text_grams');
    });

    it('pages through a search one listing at a time, each match once and newest first', async () => {
      for (const q of ['王', '原神', 'ar']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res: { status: number; body: { items: Array<{ id: string }>; next_cursor: string | null } } = await client.get(
            `/api/listings?game=${encodeURIComponent(game)}&limit=1&q=${encodeURIComponent(q)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          expect(res.status).toBe(200);
          seen.push(...res.body.items.map((l) => l.id));
          cursor = res.body.next_cursor;
        } while (cursor);
        const newestFirst = shown.filter((l) => expected(q).includes(l.id)).reverse().map((l) => l.id);
        expect(seen).toEqual(newestFirst);
      }
    });
  });

  describe('the shared cache of answers', () => {
    it('shows an approved listing to the next read and hides an offlined one at once, while reads run in parallel', async () => {
      const owner = newUser();
      const game = `cache-${uuidv7()}`;
      const list = `/api/listings?game=${encodeURIComponent(game)}`;
      const first = await online(owner, { game });
      const draft = await create(owner, { game });
      expect((await client.post(`/api/listings/${draft.id}/submit-review`, {}, owner.token)).status).toBe(200);

      // readers keep the answer cached (and reloading) the whole time the writes happen
      let reading = true;
      const readers = Array.from({ length: 8 }, async () => {
        while (reading) expect((await client.get(list)).status).toBe(200);
      });
      try {
        expect((await client.post(`/api/admin/listings/${draft.id}/approve`, {}, admin.token)).status).toBe(200);
        const afterApproval = await Promise.all([client.get(list), client.get(list), client.get(`/api/listings/${draft.id}`)]);
        for (const res of afterApproval.slice(0, 2)) expect(ids(res)).toEqual([first.id, draft.id].sort());
        expect(afterApproval[2]!.status).toBe(200);

        expect((await client.post(`/api/admin/listings/${first.id}/offline`, { reason: 'x' }, admin.token)).status).toBe(200);
        const afterOffline = await Promise.all([client.get(list), client.get(`/api/listings/${first.id}`)]);
        expect(ids(afterOffline[0]!)).toEqual([draft.id]);
        expect(afterOffline[1]!.status).toBe(404);
        // its owner still sees it: that answer is never shared
        expect((await client.get(`/api/listings/${first.id}`, owner.token)).body.status).toBe('offline');

        expect((await client.put(`/api/listings/${draft.id}`, { hourly_price: 1234 }, owner.token)).status).toBe(200);
        expect(ids(await client.get(list))).toEqual([]);
        expect((await client.get(`/api/listings/${draft.id}`)).status).toBe(404);
      } finally {
        reading = false;
        await Promise.all(readers);
      }
    });

    it('answers 304 to a client holding the current answer, and the new answer once it changed', async () => {
      const owner = newUser();
      const game = `etag-${uuidv7()}`;
      const list = `/api/listings?game=${encodeURIComponent(game)}`;
      const listing = await online(owner, { game });

      for (const path of [list, `/api/listings/${listing.id}`]) {
        const fresh = await client.raw('GET', path);
        expect(fresh.status).toBe(200);
        const etag = fresh.headers.get('etag');
        expect(etag).toMatch(/^".+"$/);
        expect(fresh.headers.get('cache-control')).toBe('no-cache');
        const again = await client.raw('GET', path, { headers: { 'if-none-match': etag! } });
        expect(again.status).toBe(304);
        expect(await again.text()).toBe('');
        expect((await client.raw('GET', path, { headers: { 'if-none-match': '"something-else"' } })).status).toBe(200);
      }

      const before = (await client.raw('GET', list)).headers.get('etag')!;
      await online(owner, { game });
      const changed = await client.raw('GET', list, { headers: { 'if-none-match': before } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(before);
      expect(((await changed.json()) as { items: unknown[] }).items).toHaveLength(2);
    });

    it('lets the gateway answer repeats of an anonymous read itself, until a write through it or its short bound', async () => {
      const owner = newUser();
      const game = `edge-${uuidv7()}`;
      const listing = await online(owner, { game });
      await eventsSent(stack);
      const reached: string[] = [];
      const count = (req: { url?: string }) => {
        if (req.url?.startsWith('/api/listings')) reached.push(req.url);
      };
      const catalogServer = stack.services.catalog!.server;
      catalogServer.on('request', count);
      try {
        const list = `/api/listings?game=${encodeURIComponent(game)}&limit=20`;
        const first = await client.raw('GET', list);
        expect(first.status).toBe(200);
        const etag = first.headers.get('etag')!;
        expect(reached).toHaveLength(1);

        // the same query in another order, a client holding the answer: none reaches catalog
        const reordered = await client.get(`/api/listings?limit=20&game=${encodeURIComponent(game)}`);
        expect(ids(reordered)).toEqual([listing.id]);
        const held = await client.raw('GET', list, { headers: { 'if-none-match': etag } });
        expect(held.status).toBe(304);
        expect(held.headers.get('etag')).toBe(etag);
        expect(reached).toHaveLength(1);

        // the owner's detail read is never a shared answer: it goes through every time
        await client.get(`/api/listings/${listing.id}`, owner.token);
        await client.get(`/api/listings/${listing.id}`, owner.token);
        expect(reached).toHaveLength(3);

        // a write through the gateway: the next read is catalog's, and shows it
        expect((await client.put(`/api/listings/${listing.id}`, { hourly_price: 4321 }, owner.token)).status).toBe(200);
        const before = reached.length;
        expect(ids(await client.get(list))).toEqual([]);
        expect(reached).toHaveLength(before + 1);

        // repeats are the gateway's again, until the kept answer's short bound passes (time is the subject)
        await eventually(
          async () => (await client.get(list), reached.length),
          (n) => n > before + 1,
          MICRO_CACHE_MS + 3000,
        );
      } finally {
        catalogServer.off('request', count);
      }
    });

    it('shows a change this process did not make within its one-second bound', async () => {
      const owner = newUser();
      const game = `replica-${uuidv7()}`;
      const list = `/api/listings?game=${encodeURIComponent(game)}`;
      const listing = await online(owner, { game });
      expect(ids(await client.get(list))).toEqual([listing.id]);
      // as another catalog replica would: committed in the database, unseen by this process's transactions
      await stack.services.catalog!.ctx.db.query(`UPDATE listings SET status = 'offline' WHERE id = $1`, [listing.id]);
      const changedAt = Date.now();
      await eventually(() => client.get(list), (res) => res.body.items.length === 0, MICRO_CACHE_MS + 3000);
      // catalog's bound, then the gateway's kept answer's
      expect(Date.now() - changedAt).toBeLessThan(1000 + MICRO_CACHE_MS + 500);
    });
  });
});
