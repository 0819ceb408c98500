import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3 } from '../../src/data/s3-client';
import { startApi, type TestApi } from '../support/harness';

/** The local S3-compatible server the tests share (jest global setup): what attachments rely on. */
let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('it listens on 127.0.0.1, stores a presigned POST upload and serves it to a presigned GET', async () => {
  const endpoint = new URL(process.env.S3_ENDPOINT!);
  expect(endpoint.hostname).toBe('127.0.0.1');
  const Bucket = process.env.ATTACHMENTS_BUCKET!;
  const Key = 'probe/hello.txt';
  const post = await createPresignedPost(s3(), {
    Bucket,
    Key,
    Fields: { 'Content-Type': 'text/plain' },
    Conditions: [['content-length-range', 5, 5]],
    Expires: 60,
  });
  expect(new URL(post.url).host).toBe(endpoint.host);
  const form = new FormData();
  for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
  form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
  expect((await fetch(post.url, { method: 'POST', body: form })).status).toBe(204);

  const url = await getSignedUrl(
    s3(),
    new GetObjectCommand({ Bucket, Key, ResponseContentDisposition: 'attachment; filename="hello.txt"' }),
    { expiresIn: 60 },
  );
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="hello.txt"');
  expect(await res.text()).toBe('hello');
});
