/**
 * How every admin subcommand reads its arguments: strict options plus
 * positionals, and a thrown parse error (unknown option, missing value)
 * becomes the one line the tool prints before exiting 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: O }>> | string {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (error) {
    return (error as Error).message;
  }
}
