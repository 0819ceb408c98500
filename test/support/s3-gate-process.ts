/**
 * The local S3 endpoint (gate and s3rver) alone in a process, so that a test
 * can read what its memory does: prints `{"endpoint": ...}` once it listens,
 * then answers each line on stdin with its resident memory now and at its
 * highest since the last line (bytes, looked at every 5 ms), as one JSON line.
 * Stops when stdin closes.
 */
import { createInterface } from 'node:readline';
import { DEFAULT_LOCAL_BUCKET, ensureBucket, startS3Local } from '../../scripts/lib/s3-local';

async function main(): Promise<void> {
  const s3 = await startS3Local();
  await ensureBucket(s3.endpoint, DEFAULT_LOCAL_BUCKET);
  console.log(JSON.stringify({ endpoint: s3.endpoint, bucket: DEFAULT_LOCAL_BUCKET }));
  let peak = process.memoryUsage.rss();
  const look = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', () => {
    const rss = process.memoryUsage.rss();
    console.log(JSON.stringify({ rss, peak: Math.max(peak, rss) }));
    peak = rss;
  });
  lines.on('close', () => {
    clearInterval(look);
    void s3.stop().then(() => process.exit(0));
  });
}

void main();
