// Closing the API's Temporal client while a call is failing and being retried (src/temporal/client.ts). Before the
// fix the SDK's retry timer fired after the channel had closed and threw "Channel has been shut down" inside the
// timer (an uncaught exception that failed whole test suites), and the caller's promise never settled.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTemporalClient } from '../../../src/temporal/client.ts';

/** A local port where nothing listens: every attempt fails at once with UNAVAILABLE, a status the SDK retries. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('close() ends a call that is being retried, and no retry runs on the closed channel', async () => {
  const temporal = createTemporalClient({ address: `127.0.0.1:${await closedPort()}`, namespace: 'default', taskQueue: 'unused' });
  const call = temporal.client.workflow.getHandle('any-workflow').describe();
  const settled = call.then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  // Let the first attempts fail so that a retry is pending or running when close() begins.
  await new Promise((resolve) => setTimeout(resolve, 300));

  await temporal.close();

  // The caller hears of it (the call was not retried again); before the fix this promise never settled.
  expect(await settled).not.toBe('resolved');
});
