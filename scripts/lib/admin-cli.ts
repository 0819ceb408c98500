/**
 * The admin tool's commands (`npm run admin -- ...`, usage in scripts/admin.ts):
 * `runAdmin` takes the arguments and where to write, and returns the exit code.
 * scripts/admin.ts runs it as the operator's process; tests call it in their
 * own process with the same arguments and read the same lines.
 */
import { tokenCommand, parseTokenCommand, TOKEN_USAGE } from './token-commands';
import { parseRetentionCommand, retentionCommand, RETENTION_USAGE } from './retention-command';
import { effectiveCommand, parseEffectiveCommand, EFFECTIVE_USAGE } from './effective-command';
import { parseSandboxCommand, sandboxCommand, SANDBOX_USAGE } from './sandbox-command';
import { revokeToken } from '../../src/data/token-store';
import type { RunningDynamo } from './dynamodb-local';
import { connect, connectS3, describeFailure, describeTarget } from './environment';
import type { RunningS3 } from './s3-local';
import { describePeople, FixtureRejected, provisionFromFile } from './provision';
import { processIo, say, type AdminIo } from './admin-io';

const USAGE = `usage: npm run admin -- import FILE | revoke TOKEN\n${TOKEN_USAGE}\n${RETENTION_USAGE}\n${EFFECTIVE_USAGE}\n${SANDBOX_USAGE}`;

/** Runs one command line; returns the exit code (0 done, 1 failed or nothing to do, 2 bad arguments). */
export async function runAdmin(argv: readonly string[], io: AdminIo = processIo()): Promise<number> {
  const [command, arg] = argv;
  // Arguments are checked before anything connects: a typo never reaches a table.
  const token = command === 'token' ? parseTokenCommand(argv.slice(1)) : undefined;
  const retention = command === 'retention' ? parseRetentionCommand(argv.slice(1)) : undefined;
  const effective = command === 'effective' ? parseEffectiveCommand(argv.slice(1)) : undefined;
  const sandbox = command === 'business' ? parseSandboxCommand(argv.slice(1)) : undefined;
  for (const problem of [token, retention, effective, sandbox])
    if (typeof problem === 'string') {
      // One line naming what is wrong (contract §18); the usage is for a missing or unknown command.
      say(io.err, problem);
      return 2;
    }
  if (!token && !retention && !effective && !sandbox && (!command || !arg || !['import', 'revoke'].includes(command))) {
    say(io.err, USAGE);
    return 2;
  }
  const value = arg ?? '';
  let embedded: RunningDynamo | undefined;
  let embeddedS3: RunningS3 | undefined;
  try {
    ({ embedded } = await connect({ allowAws: true }));
    // Retention and a sandbox reset erase attachments' bytes too (contract §19): the same S3 as npm start's, or
    // AWS (ATTACHMENTS_BUCKET).
    if (retention || (sandbox && typeof sandbox !== 'string' && sandbox.reset))
      ({ embedded: embeddedS3 } = await connectS3({ allowAws: true }));
    // First, so an operator sees where this writes (a local DynamoDB, or which AWS account) before anything happens.
    say(io.err, await describeTarget());
    if (token && typeof token !== 'string') return await tokenCommand(token, io);
    if (retention && typeof retention !== 'string') return await retentionCommand(retention, io);
    if (effective && typeof effective !== 'string') return await effectiveCommand(effective, io);
    if (sandbox && typeof sandbox !== 'string') return await sandboxCommand(sandbox, io);
    if (command === 'import') {
      const { business_id, token, summary, people } = await provisionFromFile(value);
      say(
        io.err,
        `${summary.created ? 'Created' : 'Updated'} business ${business_id}: ${summary.written} items written, ${summary.unchanged} unchanged`,
      );
      const records = describePeople(people);
      if (records) say(io.err, `Records: ${records}`);
      for (const failure of people.failures) say(io.err, failure);
      if (people.failures.length) return 1;
      say(io.out, JSON.stringify({ business_id, token }));
      return 0;
    }
    const existed = await revokeToken(value);
    say(io.err, existed ? 'Token revoked' : 'Token was not known (nothing to revoke)');
    say(io.out, JSON.stringify({ revoked: existed }));
    return existed ? 0 : 1;
  } catch (error) {
    say(io.err, error instanceof FixtureRejected ? error.message : `admin failed: ${describeFailure(error)}`);
    return 1;
  } finally {
    await embeddedS3?.stop();
    await embedded?.stop();
  }
}
