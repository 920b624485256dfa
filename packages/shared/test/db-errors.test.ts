import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError, TypeORMError } from 'typeorm';
import { isDatabaseUnavailable } from '../src/db';

// db/errors recognises TypeORM's released-runner errors by name so that the HTTP layer does not load
// TypeORM; this holds it to the real classes.
describe('isDatabaseUnavailable', () => {
  it('recognises a query on a transaction whose connection was released', () => {
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it('does not take other TypeORM errors or a lost-looking message in a plain name for it', () => {
    expect(isDatabaseUnavailable(new TypeORMError('No metadata for "Listing" was found.'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('QueryRunnerAlreadyReleasedError'))).toBe(false);
  });

  it('recognises a lost connection from the driver', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
  });

  it('recognises a server that takes no writes, behind a failover, wrapped as TypeORM wraps it', () => {
    const refused = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new TypeORMError('query failed'), { driverError: refused }))).toBe(true);
  });
});
