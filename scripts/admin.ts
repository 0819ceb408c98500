/**
 * Provisioning tool (contract §10, §15):
 *   npm run admin -- import FILE   import a business fixture (idempotent), print {"business_id","token"}
 *   npm run admin -- revoke TOKEN  revoke an API token
 *   npm run admin -- token create BUSINESS_ID [--scopes S1,S2] [--expires-in-days N] [--name NAME] [--rate-limit N/W]
 *   npm run admin -- token list BUSINESS_ID            one JSON line per token (never the token)
 *   npm run admin -- token revoke BUSINESS_ID HASH      revoke by the hash prefix `token list` shows
 *   npm run admin -- retention run [--now DATETIME] [--business ID]
 *                                                 erase applications past their business's retention, print {"erased": N}
 * Every command first prints its target on stderr (table and endpoint, or AWS region and account).
 */
import { tokenCommand, parseTokenCommand, TOKEN_USAGE } from './lib/token-commands';
import { parseRetentionCommand, retentionCommand, RETENTION_USAGE } from './lib/retention-command';
import { revokeToken } from '../src/data/token-store';
import type { RunningDynamo } from './lib/dynamodb-local';
import { connect, connectS3, describeFailure, describeTarget } from './lib/environment';
import type { RunningS3 } from './lib/s3-local';
import { FixtureRejected, provisionFromFile } from './lib/provision';

const USAGE = `usage: npm run admin -- import FILE | revoke TOKEN\n${TOKEN_USAGE}\n${RETENTION_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  // Arguments are checked before anything connects: a typo never reaches a table.
  const token = command === 'token' ? parseTokenCommand(argv.slice(1)) : undefined;
  const retention = command === 'retention' ? parseRetentionCommand(argv.slice(1)) : undefined;
  for (const problem of [token, retention])
    if (typeof problem === 'string') {
      // One line naming what is wrong (contract §18); the usage is for a missing or unknown command.
      console.error(problem);
      return 2;
    }
  if (!token && !retention && (!command || !arg || !['import', 'revoke'].includes(command))) {
    console.error(USAGE);
    return 2;
  }
  const value = arg ?? '';
  let embedded: RunningDynamo | undefined;
  let embeddedS3: RunningS3 | undefined;
  try {
    ({ embedded } = await connect({ allowAws: true }));
    // Retention erases attachments' bytes too (contract §19): the same S3 as npm start's, or AWS (ATTACHMENTS_BUCKET).
    if (retention) ({ embedded: embeddedS3 } = await connectS3({ allowAws: true }));
    // First, so an operator sees where this writes (a local DynamoDB, or which AWS account) before anything happens.
    console.error(await describeTarget());
    if (token && typeof token !== 'string') return await tokenCommand(token);
    if (retention && typeof retention !== 'string') return await retentionCommand(retention);
    if (command === 'import') {
      const { business_id, token, summary } = await provisionFromFile(value);
      console.error(
        `${summary.created ? 'Created' : 'Updated'} business ${business_id}: ${summary.written} items written, ${summary.unchanged} unchanged`,
      );
      console.log(JSON.stringify({ business_id, token }));
      return 0;
    }
    const existed = await revokeToken(value);
    console.error(existed ? 'Token revoked' : 'Token was not known (nothing to revoke)');
    console.log(JSON.stringify({ revoked: existed }));
    return existed ? 0 : 1;
  } catch (error) {
    console.error(error instanceof FixtureRejected ? error.message : `admin failed: ${describeFailure(error)}`);
    return 1;
  } finally {
    await embeddedS3?.stop();
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`admin failed: ${describeFailure(error)}`);
    process.exit(1);
  },
);
