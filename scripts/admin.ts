/**
 * Provisioning tool (contract §10, §15):
 *   npm run admin -- import FILE   import a business fixture (idempotent), print {"business_id","token"}
 *   npm run admin -- revoke TOKEN  revoke an API token
 *   npm run admin -- token create BUSINESS_ID [--scopes S1,S2] [--expires-in-days N] [--name NAME] [--rate-limit N/W]
 *   npm run admin -- token list BUSINESS_ID            one JSON line per token (never the token)
 *   npm run admin -- token revoke BUSINESS_ID HASH      revoke by the hash prefix `token list` shows
 *   npm run admin -- retention run [--now DATETIME] [--business ID]
 *                                                 erase applications past their business's retention, print {"erased": N}
 *   npm run admin -- effective run [--now DATETIME] [--business ID]
 *                                                 write the employee changes of the days begun, print {"updated": N}
 *   npm run admin -- business sandbox ID [--reset] [--employees N] [--applications N]
 *                                                 make (--reset: empty and refill) ID-sandbox, print {"business_id","token"}
 * Every command first prints its target on stderr (table and endpoint, or AWS region and account).
 * The commands live in scripts/lib/admin-cli.ts; this process runs one and exits with its code.
 */
import { runAdmin } from './lib/admin-cli';
import { describeFailure } from './lib/environment';

// What the tool may write locally (the data folder, an embedded DynamoDB Local's or S3 server's files) is the user's only.
process.umask(0o077);

runAdmin(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`admin failed: ${describeFailure(error)}`);
    process.exit(1);
  },
);
