/**
 * The namespace's id a worker records in its poll tickets and gives up attempts by
 * (worker/ended-polls.ts), from the shared dev server: one per cluster and namespace.
 */
import { NativeConnection } from '@temporalio/worker';
import { namespaceIdOf } from '../../worker/ended-polls';
import { devServerAddress } from '../support/temporal';

describe('namespaceIdOf', () => {
  let connection: NativeConnection;
  beforeAll(async () => {
    connection = await NativeConnection.connect({ address: devServerAddress() });
  });
  afterAll(async () => {
    await connection?.close();
  });

  it("is the namespace's id at the server, the same each time, and undefined for a namespace it does not have", async () => {
    const id = await namespaceIdOf(connection, 'default');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await namespaceIdOf(connection, 'default')).toBe(id);
    expect(await namespaceIdOf(connection, 'no-such-namespace')).toBeUndefined();
  });
});
