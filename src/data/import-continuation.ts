/**
 * How a deployed import run that reached its time limit hands over to the
 * next (contract §22: an import resumes across invocations): an asynchronous
 * invocation of its own function with the import's reference. Lambda retries
 * an asynchronous invocation that fails, and the next run resumes from the
 * import's checkpoint whoever starts it.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';

let client: LambdaClient | undefined;

export async function invokeNextRun(functionName: string, ref: { businessId: string; id: string }): Promise<void> {
  client ??= new LambdaClient({});
  await client.send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'Event',
      Payload: Buffer.from(JSON.stringify({ resume: ref })),
    }),
  );
}
