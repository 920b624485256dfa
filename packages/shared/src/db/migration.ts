import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { Queryable } from './sql';

/** A migration class a service writes by hand (when `sqlMigration`'s list of statements is not enough). */
export interface Migration {
  name: string;
  up(q: Queryable): Promise<void>;
  down(q: Queryable): Promise<void>;
}

/**
 * A migration that is only SQL: `up` statements run in order, `down` statements undo them.
 * `name` ends in the 13-digit timestamp TypeORM orders migrations by.
 */
export function sqlMigration(name: string, up: string[], down: string[]): new () => MigrationInterface {
  if (!/\d{13}$/.test(name)) throw new Error(`migration name ${name} must end in a 13-digit timestamp`);
  return class implements MigrationInterface {
    name = name;

    async up(q: QueryRunner) {
      for (const statement of up) await q.query(statement);
    }

    async down(q: QueryRunner) {
      for (const statement of down) await q.query(statement);
    }
  };
}
