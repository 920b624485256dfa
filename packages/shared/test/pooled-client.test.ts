import type { DataSource } from 'typeorm';
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

describe('statements prepared once per connection', () => {
  let db: DataSource;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('t_prepared');
    db = createDataSource({ url: (await resolveInfra()).DATABASE_URL, schema, entities: [], migrations: [], poolSize: 1 });
    await initializeDataSource(db, schema);
    await db.query(`CREATE TABLE things (id integer PRIMARY KEY, name text NOT NULL)`);
    await db.query(`INSERT INTO things (id, name) VALUES (1, 'one'), (2, 'two')`);
  });

  afterAll(async () => {
    await db.destroy();
    await dropSchemas((await resolveInfra()).DATABASE_URL, [schema]);
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
