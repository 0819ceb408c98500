/**
 * Provisioning tool (contract §10):
 *   npm run admin -- import FILE   import a business fixture (idempotent), print {"business_id","token"}
 *   npm run admin -- revoke TOKEN  revoke an API token
 * Every command first prints its target on stderr (table and endpoint, or AWS region and account).
 */
import { revokeToken } from '../src/data/token-store';
import type { RunningDynamo } from './lib/dynamodb-local';
import { connect, describeFailure, describeTarget } from './lib/environment';
import { FixtureRejected, provisionFromFile } from './lib/provision';

const USAGE = 'usage: npm run admin -- import FILE | revoke TOKEN';

async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  if (!command || !arg || !['import', 'revoke'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  let embedded: RunningDynamo | undefined;
  try {
    ({ embedded } = await connect({ allowAws: true }));
    // First, so an operator sees where this writes (a local DynamoDB, or which AWS account) before anything happens.
    console.error(await describeTarget());
    if (command === 'import') {
      const { business_id, token, summary } = await provisionFromFile(arg);
      console.error(
        `${summary.created ? 'Created' : 'Updated'} business ${business_id}: ${summary.written} items written, ${summary.unchanged} unchanged`,
      );
      console.log(JSON.stringify({ business_id, token }));
      return 0;
    }
    const existed = await revokeToken(arg);
    console.error(existed ? 'Token revoked' : 'Token was not known (nothing to revoke)');
    console.log(JSON.stringify({ revoked: existed }));
    return existed ? 0 : 1;
  } catch (error) {
    console.error(error instanceof FixtureRejected ? error.message : `admin failed: ${describeFailure(error)}`);
    return 1;
  } finally {
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
