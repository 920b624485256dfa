import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import {
  createDataSource,
  decodeCursor,
  encodeCursor,
  initializeDataSource,
  InvalidCursorError,
  keysetPage,
  NEWEST_FIRST,
  type KeysetOrder,
  type Queryable,
} from '../src/db';
import { dropSchemas, resolveInfra, uniqueName } from '../src/testing';

interface ItemRow {
  id: string;
  tag: string;
  price: number;
  serial: string;
  created_at: Date;
}

const byPrice = (direction: KeysetOrder['direction']): KeysetOrder => ({
  keys: [
    { column: 'price', type: 'integer' },
    { column: 'id', type: 'uuid' },
  ],
  direction,
});
const BY_SERIAL: KeysetOrder = { keys: [{ column: 'serial', type: 'bigint' }], direction: 'asc' };

const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('the keyset pager', () => {
  let db: DataSource;
  let schema: string;
  let databaseUrl: string;
  const ids: string[] = [];

  beforeAll(async () => {
    databaseUrl = (await resolveInfra()).DATABASE_URL;
    schema = uniqueName('t_pager');
    db = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [] });
    await initializeDataSource(db, schema);
    await db.query(`CREATE TABLE items (id uuid PRIMARY KEY, tag text NOT NULL, price integer NOT NULL, serial bigint NOT NULL, created_at timestamptz NOT NULL)`);
    // Ties everywhere a pager can stumble: one instant shared by many rows, rows a microsecond
    // apart inside one millisecond, repeated prices, serials beyond 2^53.
    const instants = ['2026-11-22 10:00:00.123456+00', '2026-11-22 10:00:00.123457+00', '2026-11-22 10:00:00.123999+00', '2026-11-22 10:00:00.124+00'];
    for (let i = 0; i < 23; i += 1) {
      const id = uuidv7();
      ids.push(id);
      await db.query(`INSERT INTO items (id, tag, price, serial, created_at) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        i % 3 === 0 ? 'odd-one' : 'common',
        [100, 200, 200, 300][i % 4],
        (2n ** 60n + BigInt(i * 7)).toString(),
        instants[i % instants.length],
      ]);
    }
  });

  afterAll(async () => {
    await db.destroy();
    await dropSchemas(databaseUrl, [schema]);
  });

  async function everyPage(order: KeysetOrder, limit: number, filter?: { tag: string }) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await keysetPage<ItemRow>(db, {
        query: `SELECT id, tag, price, serial, created_at FROM items${filter ? ' WHERE tag = $1' : ''}`,
        params: filter ? [filter.tag] : [],
        orderBy: order,
        limit,
        cursor,
      });
      expect(page.items.length).toBeLessThanOrEqual(limit);
      for (const item of page.items) expect(Object.keys(item).sort()).toEqual(['created_at', 'id', 'price', 'serial', 'tag']);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.next_cursor ?? undefined;
      pages += 1;
    } while (cursor !== undefined && pages < 100);
    return seen;
  }

  async function expected(orderBy: string, filter?: { tag: string }): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM items${filter ? ' WHERE tag = $1' : ''} ORDER BY ${orderBy}`,
      filter ? [filter.tag] : [],
    );
    return rows.map((r) => r.id);
  }

  describe('with a sparse filter', () => {
    async function everySparsePage(order: KeysetOrder, limit: number, window: number, tag: string, indexed?: string) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await keysetPage<ItemRow>(db, {
          query: 'SELECT id, tag, price, serial, created_at FROM items WHERE price > $1',
          params: [0],
          orderBy: order,
          limit,
          cursor,
          sparse: { filter: (param) => `tag = ${param(tag)}`, indexed: indexed === undefined ? undefined : (param) => `${param(indexed)}::boolean`, window },
        });
        for (const item of page.items) expect(item.tag).toBe(tag);
        seen.push(...page.items.map((item) => item.id));
        cursor = page.next_cursor ?? undefined;
        pages += 1;
      } while (cursor !== undefined && pages < 100);
      return seen;
    }

    // A window of 1 or 2 rows never holds a page (the whole query answers), one of 100 always does;
    // between them the two meet across page boundaries.
    it.each([
      [1, 1],
      [2, 2],
      [3, 5],
      [2, 7],
      [4, 100],
    ])('pages of %i with a window of %i give the rows the filter gives, in order, once each', async (limit, window) => {
      for (const tag of ['common', 'odd-one', 'absent']) {
        expect(await everySparsePage(NEWEST_FIRST, limit, window, tag)).toEqual(await expected('created_at DESC, id DESC', { tag }));
        expect(await everySparsePage(byPrice('asc'), limit, window, tag)).toEqual(await expected('price ASC, id ASC', { tag }));
      }
    });

    it('adds the indexed condition only when the window does not hold a page', async () => {
      const contradiction = 'false'; // a parameter of its own, which the window's query must not be sent
      // 'common' fills a page of 2 within the first 5 rows: the window answers, the contradiction is never applied
      expect(await everySparsePage(NEWEST_FIRST, 2, 5, 'common', contradiction)).not.toEqual([]);
      // a window of 1 never holds a page of 2: the whole query answers, with the contradiction
      expect(await everySparsePage(NEWEST_FIRST, 2, 1, 'common', contradiction)).toEqual([]);
    });

    it('refuses a window that is not a positive integer', async () => {
      await expect(
        keysetPage(db, { query: 'SELECT * FROM items', orderBy: NEWEST_FIRST, limit: 5, cursor: undefined, sparse: { filter: () => 'true', window: 0 } }),
      ).rejects.toThrow('positive integers');
    });
  });

  it.each([1, 2, 3, 7, 22, 23, 100])('returns every row exactly once, newest first, in pages of %i', async (limit) => {
    expect(await everyPage(NEWEST_FIRST, limit)).toEqual(await expected('created_at DESC, id DESC'));
  });

  it('pages by a repeated integer both ways, and by a bigint alone', async () => {
    expect(await everyPage(byPrice('asc'), 3)).toEqual(await expected('price ASC, id ASC'));
    expect(await everyPage(byPrice('desc'), 4)).toEqual(await expected('price DESC, id DESC'));
    expect(await everyPage(BY_SERIAL, 5)).toEqual(await expected('serial ASC'));
  });

  it('numbers its own parameters after the query’s', async () => {
    expect(await everyPage(NEWEST_FIRST, 2, { tag: 'odd-one' })).toEqual(await expected('created_at DESC, id DESC', { tag: 'odd-one' }));
  });

  it('refuses forged, garbage and tampered cursors before anything reaches the database', async () => {
    const real = (await keysetPage<ItemRow>(db, { query: 'SELECT * FROM items', orderBy: NEWEST_FIRST, limit: 1, cursor: undefined })).next_cursor!;
    const [at, id] = decodeCursor(NEWEST_FIRST, real)!;
    const o = 'created_at,id:desc';
    const bad = [
      '2020',
      'garbage!',
      '',
      real.slice(0, -3),
      `${real}x`,
      forge(null),
      forge('2020'),
      forge({ v: '2020', id }),
      forge({ o, k: ['2020', id] }),
      forge({ o, k: [at, `${id}' OR '1'='1`] }),
      forge({ o, k: [at] }),
      forge({ o, k: [at, id, id] }),
      forge({ o, k: [Date.parse(at!), id] }),
      forge({ o, k: '2020' }),
      forge({ o, k: ['2026-02-30T00:00:00.000000Z', id] }),
      forge({ o, k: ['0000-01-01T00:00:00.000000Z', id] }),
      forge({ o, k: ['+275760-09-13T00:00:00.000000Z', id] }),
      forge({ o, k: ['2026-11-22T10:00:00.123Z', id] }),
      forge({ o, k: ['2026-11-22 10:00:00.123456+00', id] }),
      forge({ o: 'price,id:desc', k: [at, id] }),
      encodeCursor(byPrice('asc'), ['100', id!]),
    ];
    let queries = 0;
    const counting: Queryable = { query: (sql, params) => ((queries += 1), db.query(sql, params)) };
    for (const cursor of bad) {
      await expect(keysetPage(counting, { query: 'SELECT * FROM items', orderBy: NEWEST_FIRST, limit: 5, cursor })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    }
    for (const [order, position] of [
      [byPrice('asc'), ['2147483648', id]],
      [byPrice('asc'), ['1e3', id]],
      [byPrice('desc'), ['-2147483649', id]],
      [BY_SERIAL, ['9223372036854775808']],
      [BY_SERIAL, ['12.5']],
    ] as const) {
      await expect(keysetPage(counting, { query: 'SELECT * FROM items', orderBy: order, limit: 5, cursor: encodeCursor(order, [...position]) })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    }
    expect(queries).toBe(0);
  });

  it('takes the extreme values Postgres can hold and hands back an empty page past them', async () => {
    for (const [order, position] of [
      [byPrice('asc'), ['2147483647', ids[0]!]],
      [BY_SERIAL, ['9223372036854775807']],
      [NEWEST_FIRST, ['0001-01-01T00:00:00.000000Z', ids[0]!]],
    ] as const) {
      const page = await keysetPage(db, { query: 'SELECT * FROM items', orderBy: order, limit: 5, cursor: encodeCursor(order, [...position]) });
      expect(page).toEqual({ items: [], next_cursor: null });
    }
  });
});
