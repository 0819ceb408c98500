import type { Context } from 'aws-lambda';
import { logger } from '../../src/http/logger';
import { proxyTheApi, seededRandom } from './dynamo-proxy';

/**
 * Runs a scheduled job's Lambda handler with every read dropped (the registry's Query first, so the run fails
 * before it writes anything): what it threw, and the JSON lines it logged meanwhile (Powertools writes ERROR
 * lines to stderr, the others to stdout).
 */
export async function runFailingJob(
  job: (event: object, context: Context) => Promise<unknown>,
  seed: number,
): Promise<{ failure: unknown; logged: Record<string, unknown>[] }> {
  const proxy = await proxyTheApi({}, seededRandom(seed));
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array): boolean => (lines.push(String(chunk)), true);
  const writes = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation(capture),
  );
  logger.setLogLevel('INFO');
  let failure: unknown;
  try {
    proxy.setModes({ dropBeforeForward: 1, operations: ['Query', 'BatchGetItem'] });
    const context = { getRemainingTimeInMillis: () => 120_000 } as unknown as Context;
    failure = await job({}, context).then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    logger.setLogLevel('SILENT');
    for (const write of writes) write.mockRestore();
    proxy.setModes({});
    await proxy.restore();
  }
  const logged = lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { failure, logged };
}
