import { sqlMigration } from '@market/shared/db';

/**
 * Every write to an order moves its version on, whoever makes it: the moves do it themselves
 * (`version = version + 1`); this trigger does it for the writes that did not (the bookkeeping of
 * the jobs, an operator's hand-made UPDATE). A party's move may be planned on the order as the
 * process last wrote it and is written only if the order is still at that version (ADR 0083), so a
 * write that left the version alone could let a move be decided on a row that is no longer true.
 */
export const EveryOrderWriteAVersion1767400000000 = sqlMigration(
  'EveryOrderWriteAVersion1767400000000',
  [
    `CREATE FUNCTION order_write_moves_version() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.version = OLD.version THEN
         NEW.version := OLD.version + 1;
       END IF;
       RETURN NEW;
     END
     $$`,
    `CREATE TRIGGER every_order_write_a_version BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION order_write_moves_version()`,
  ],
  [`DROP TRIGGER every_order_write_a_version ON orders`, `DROP FUNCTION order_write_moves_version()`],
);
