/**
 * src/data/aws-json-requests.ts against a stand-in for KMS and SQS on 127.0.0.1: the requests carry the services'
 * JSON protocols and a SigV4 signature of what was sent; a sealed secret opens again; an export run is queued; a
 * passing 5xx is retried, an error answer is not.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { awsJsonCall, AwsJsonError } from '../../src/data/aws-json-requests';
import { runWithDeadline } from '../../src/data/deadline';
import { queueExportRun } from '../../src/data/export-queue';
import { open, seal } from '../../src/data/secret-box';

const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test' };
const ENV = [
  'AWS_ENDPOINT_URL_KMS',
  'AWS_ENDPOINT_URL_SQS',
  'EXPORT_QUEUE_URL',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'WEBHOOK_KMS_KEY_ID',
];
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

interface Seen {
  target: string | undefined;
  contentType: string | undefined;
  body: Record<string, unknown>;
  signatureOk: boolean;
}
let seen: Seen[] = [];
/** Status and body of the next answers (then 200 with the stand-in's own answer); status 0 never answers. */
let scripted: [number, string][] = [];
let server: Server;

/** The signature the sender should have computed for this request, at its own X-Amz-Date. */
async function expectedAuthorization(req: IncomingMessage, body: string, port: number): Promise<string> {
  const signer = new SignatureV4({
    credentials: CREDENTIALS,
    region: 'eu-central-1',
    service: String(req.headers['x-amz-target']).startsWith('AmazonSQS.') ? 'sqs' : 'kms',
    sha256: Hash.bind(null, 'sha256'),
  });
  const amzDate = String(req.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      path: '/',
      query: {},
      headers: {
        host: `127.0.0.1:${port}`,
        'content-type': String(req.headers['content-type']),
        'x-amz-target': String(req.headers['x-amz-target']),
      },
      body,
    },
    { signingDate },
  );
  return String(signed.headers.authorization);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const port = (server.address() as AddressInfo).port;
        const input = JSON.parse(body) as Record<string, unknown>;
        seen.push({
          target: req.headers['x-amz-target'] as string | undefined,
          contentType: req.headers['content-type'],
          body: input,
          signatureOk: req.headers.authorization === (await expectedAuthorization(req, body, port)),
        });
        const next = scripted.shift();
        if (next) {
          // Status 0: the stand-in never answers (a connection that hangs).
          if (next[0] !== 0) res.writeHead(next[0]).end(next[1]);
          return;
        }
        // The stand-in's "ciphertext": the plaintext and its context, readable back only with the same context.
        const context = JSON.stringify(input.EncryptionContext);
        const answer =
          req.headers['x-amz-target'] === 'AmazonSQS.SendMessage'
            ? { MessageId: 'm-1' }
            : req.headers['x-amz-target'] === 'TrentService.Encrypt'
              ? { CiphertextBlob: Buffer.from(JSON.stringify([input.Plaintext, context])).toString('base64') }
              : (() => {
                  const [plaintext, sealedContext] = JSON.parse(
                    Buffer.from(String(input.CiphertextBlob), 'base64').toString('utf8'),
                  ) as [string, string];
                  return sealedContext === context ? { Plaintext: plaintext } : undefined;
                })();
        if (answer) res.writeHead(200).end(JSON.stringify(answer));
        else res.writeHead(400).end(JSON.stringify({ __type: 'com.amazon.kms#InvalidCiphertextException' }));
      })();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_KMS: endpoint,
    EXPORT_QUEUE_URL: `${endpoint}/111122223333/exports`,
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    WEBHOOK_KMS_KEY_ID: 'arn:aws:kms:eu-central-1:111122223333:key/test',
  });
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

beforeEach(() => {
  seen = [];
  scripted = [];
});

it('seals with a signed Encrypt and opens with a signed Decrypt, bound to the subscription', async () => {
  const sealed = await seal('whsec_abc', 'sub-1');
  expect(sealed).toMatch(/^kms:/);
  expect(await open(sealed, 'sub-1')).toBe('whsec_abc');
  await expect(open(sealed, 'sub-2')).rejects.toThrow(AwsJsonError);
  expect(seen.map((s) => [s.target, s.contentType, s.signatureOk])).toEqual([
    ['TrentService.Encrypt', 'application/x-amz-json-1.1', true],
    ['TrentService.Decrypt', 'application/x-amz-json-1.1', true],
    ['TrentService.Decrypt', 'application/x-amz-json-1.1', true],
  ]);
  expect(seen[0]!.body).toEqual({
    KeyId: 'arn:aws:kms:eu-central-1:111122223333:key/test',
    Plaintext: Buffer.from('whsec_abc').toString('base64'),
    EncryptionContext: { subscription: 'sub-1' },
  });
});

it('queues an export run with a signed SendMessage to the queue URL', async () => {
  await queueExportRun('b-1', 'e-1');
  expect(seen).toEqual([
    {
      target: 'AmazonSQS.SendMessage',
      contentType: 'application/x-amz-json-1.0',
      signatureOk: true,
      body: {
        QueueUrl: process.env.EXPORT_QUEUE_URL,
        MessageBody: JSON.stringify({ business_id: 'b-1', id: 'e-1' }),
      },
    },
  ]);
});

it('tries a passing 5xx or throttling again, up to three tries; an error answer once', async () => {
  scripted = [
    [503, '<html>busy</html>'],
    [400, JSON.stringify({ __type: 'ThrottlingException', message: 'slow down' })],
  ];
  expect(await awsJsonCall('kms', 'Encrypt', { KeyId: 'k', Plaintext: 'AA==' })).toHaveProperty('CiphertextBlob');
  expect(seen).toHaveLength(3);

  seen = [];
  scripted = [
    [500, ''],
    [500, ''],
    [500, ''],
  ];
  await expect(awsJsonCall('kms', 'Encrypt', { KeyId: 'k', Plaintext: 'AA==' })).rejects.toMatchObject({ status: 500 });
  expect(seen).toHaveLength(3);

  seen = [];
  scripted = [[400, JSON.stringify({ __type: 'com.amazon.coral#AccessDeniedException', message: 'no' })]];
  await expect(awsJsonCall('kms', 'Encrypt', { KeyId: 'k', Plaintext: 'AA==' })).rejects.toMatchObject({
    type: 'AccessDeniedException',
    status: 400,
  });
  expect(seen).toHaveLength(1);
});

it('ends inside the request deadline: a try that hangs, or a pause with no room left, is a 503', async () => {
  scripted = [[0, 'hang']];
  await expect(
    runWithDeadline(300, () => awsJsonCall('kms', 'Encrypt', { KeyId: 'k', Plaintext: 'AA==' })),
  ).rejects.toMatchObject({
    statusCode: 503,
  });
  expect(seen).toHaveLength(1);

  seen = [];
  scripted = [[500, '']];
  await expect(
    runWithDeadline(100, () => awsJsonCall('kms', 'Encrypt', { KeyId: 'k', Plaintext: 'AA==' })),
  ).rejects.toMatchObject({
    statusCode: 503,
  });
  expect(seen).toHaveLength(1);
});
