import type { DataSource, QueryRunner } from 'typeorm';
import { createDataSource, initializeDataSource, MAX_PREPARED_PER_CONNECTION } from '../src/db';
import { dropSchemas, resolveInfra, uniqueName } from '../src/testing';

/** The statements the server holds prepared for the connection a query runner has taken. */
async function preparedOn(db: DataSource, work: (query: (text: string, values?: unknown[]) => Promise<any>) => Promise<void>) {
  const runner = db.createQueryRunner();
  try {
    await work((text, values) => runner.query(text, values));
    const rows: Array<{ statement: string }> = await runner.query(`SELECT statement FROM pg_prepared_statements`);
    return rows.map((row) => row.statement);
  } finally {
    await runner.release();
  }
}

/** Round trips a query runner's connection makes while `work` runs: the server's ReadyForQuery answers. */
async function roundTrips(runner: QueryRunner, work: () => Promise<unknown>): Promise<number> {
  const connection = ((await runner.connect()) as { connection: NodeJS.EventEmitter }).connection;
  let count = 0;
  const counted = () => count++;
  connection.on('readyForQuery', counted);
  try {
    await work();
  } finally {
    connection.off('readyForQuery', counted);
  }
  return count;
}

/** The describe's own schema with a `things` table, on a pool of `poolSize` connections. */
function thingsSchema(poolSize: number): { db: DataSource } {
  const suite = {} as { db: DataSource };
  const schema = uniqueName('t_pooled');
  beforeAll(async () => {
    suite.db = createDataSource({ url: (await resolveInfra()).DATABASE_URL, schema, entities: [], migrations: [], poolSize });
    await initializeDataSource(suite.db, schema);
    await suite.db.query(`CREATE TABLE things (id integer PRIMARY KEY, name text NOT NULL)`);
  });
  afterAll(async () => {
    await suite.db?.destroy();
    await dropSchemas((await resolveInfra()).DATABASE_URL, [schema]);
  });
  return suite;
}

describe('statements prepared once per connection', () => {
  const suite = thingsSchema(1);
  let db: DataSource;

  beforeAll(async () => {
    db = suite.db;
    await db.query(`INSERT INTO things (id, name) VALUES (1, 'one'), (2, 'two')`);
  });

  it('prepares a parameterised text once and answers each use with its own values', async () => {
    const text = `SELECT name FROM things WHERE id = $1`;
    const answers: string[] = [];
    const statements = await preparedOn(db, async (query) => {
      for (const id of [1, 2, 1]) answers.push((await query(text, [id]))[0].name);
      await query(`SELECT count(*) FROM things`);
    });
    expect(answers).toEqual(['one', 'two', 'one']);
    expect(statements.filter((s) => s === text)).toHaveLength(1);
    // a text without parameters goes as a simple query, never prepared
    expect(statements).not.toContain(`SELECT count(*) FROM things`);
  });

  it('answers errors as the unnamed statement did, and the connection goes on', async () => {
    await expect(db.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [1, 'again'])).rejects.toMatchObject({ driverError: { code: '23505' } });
    await expect(db.query(`SELECT nope FROM things WHERE id = $1`, [1])).rejects.toMatchObject({ driverError: { code: '42703' } });
    expect(await db.query(`SELECT name FROM things WHERE id = $1`, [2])).toEqual([{ name: 'two' }]);
  });

  it('a table changed under a prepared statement fails it once; the pool replaces the connection and the next use is planned anew', async () => {
    const text = `SELECT * FROM things WHERE id = $1`;
    expect(await db.query(text, [1])).toEqual([{ id: 1, name: 'one' }]);
    // what a newer release's migration does while this one still runs
    await db.query(`ALTER TABLE things ADD COLUMN colour text NOT NULL DEFAULT 'blue'`);
    await expect(db.query(text, [1])).rejects.toMatchObject({ driverError: { code: '0A000' } });
    expect(await db.query(text, [1])).toEqual([{ id: 1, name: 'one', colour: 'blue' }]);
  });
  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} texts per connection and sends the rest unnamed`, async () => {
    // the last test: it fills its connection (the pool's only one)
    const statements = await preparedOn(db, async (query) => {
      for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 20; i++) {
        expect(await query(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: 1 + i }]);
      }
    });
    // the earlier tests' texts share the connection's slots
    expect(statements.length).toBe(MAX_PREPARED_PER_CONNECTION);
    expect(statements).toContain(`SELECT $1::int + 0 AS n`);
    expect(statements).not.toContain(`SELECT $1::int + ${MAX_PREPARED_PER_CONNECTION + 19} AS n`);
  });
});

describe('a transaction\'s BEGIN sent with its first statement', () => {
  const suite = thingsSchema(2);
  let db: DataSource;

  beforeAll(() => {
    db = suite.db;
  });

  const names = async () => (await db.query(`SELECT id, name FROM things ORDER BY id`)) as Array<{ id: number; name: string }>;

  it('runs the first statement inside the transaction, one round trip fewer', async () => {
    const runner = db.createQueryRunner();
    try {
      const trips = await roundTrips(runner, async () => {
        await runner.startTransaction();
        const [first] = await runner.query(`INSERT INTO things (id, name) VALUES ($1, $2) RETURNING pg_current_xact_id()::text AS xact`, [1, 'one']);
        const [later] = await runner.query(`SELECT pg_current_xact_id()::text AS xact, $1::int AS n`, [1]);
        expect(later.xact).toBe(first.xact);
        await runner.commitTransaction();
      });
      // the INSERT with its BEGIN, the SELECT, the COMMIT: BEGIN alone was a fourth
      expect(trips).toBe(3);
    } finally {
      await runner.release();
    }
    expect(await names()).toEqual([{ id: 1, name: 'one' }]);
  });

  it('rolls the first statement back with the rest', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [2, 'two']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await names()).toEqual([{ id: 1, name: 'one' }]);
  });

  it('a first statement that fails aborts the transaction, and the connection goes on', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [1, 'again']);
      }),
    ).rejects.toMatchObject({ driverError: { code: '23505' } });
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [3, 'three']);
    });
    expect(await names()).toEqual([
      { id: 1, name: 'one' },
      { id: 3, name: 'three' },
    ]);
  });

  it('a transaction that ends before any statement sends nothing', async () => {
    const runner = db.createQueryRunner();
    try {
      expect(
        await roundTrips(runner, async () => {
          await runner.startTransaction();
          await runner.commitTransaction();
          await runner.startTransaction();
          await runner.rollbackTransaction();
        }),
      ).toBe(0);
    } finally {
      await runner.release();
    }
  });

  it('a first statement without parameters is preceded by the BEGIN on its own', async () => {
    const isolation = await db.transaction(async (tx) => {
      await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
      return (await tx.query(`SELECT current_setting('transaction_isolation') AS level, $1::int AS n`, [1]))[0].level;
    });
    expect(isolation).toBe('repeatable read');
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`INSERT INTO things (id, name) VALUES (4, 'four')`);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    expect((await names()).map((row) => row.id)).toEqual([1, 3]);
  });

  it('a connection released with its BEGIN unsent holds no transaction for its next user', async () => {
    const abandoned = db.createQueryRunner();
    await abandoned.startTransaction();
    await abandoned.release();
    // the pool of two hands the same connections out again: on each, a statement commits by itself
    const [a, b] = [db.createQueryRunner(), db.createQueryRunner()];
    try {
      await a.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [5, 'five']);
      await b.query(`INSERT INTO things (id, name) VALUES ($1, $2)`, [6, 'six']);
      // each reads the other's row: both are committed
      const seenBy = (runner: QueryRunner, id: number) => runner.query(`SELECT count(*)::int AS n FROM things WHERE id = $1`, [id]);
      expect(await seenBy(a, 6)).toEqual([{ n: 1 }]);
      expect(await seenBy(b, 5)).toEqual([{ n: 1 }]);
    } finally {
      await a.release();
      await b.release();
    }
  });
});
