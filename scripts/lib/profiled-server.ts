/**
 * The local server (scripts/lib/server.ts) in a process of its own that
 * measures itself per phase, for `npm run bench:fairness`: on `{phase}` over
 * IPC it notes its CPU time (and with `profile` starts the V8 CPU profiler,
 * node:inspector); on `{stop}` it answers the phase's CPU microseconds (user +
 * system) and the profile, summarized (scripts/lib/cpu-profile.ts), and
 * writes the whole profile to CPU_PROFILE_DIR when set (open it in Chrome
 * DevTools). The profiler's sampling costs CPU of its own: CPU per request is
 * measured in phases without it.
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalServer } from './server';
import { summarizeProfile, type CpuProfile } from './cpu-profile';

const FLOOR_BODY = JSON.stringify({
  error: 'rate_limited',
  message: 'This token exceeded its rate limit of 1 request per 3600 seconds; nothing was done, retry in 3599 seconds',
  request_id: '00000000-0000-0000-0000-000000000000',
});
const FLOOR_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'X-Request-Id': '00000000-0000-0000-0000-000000000000',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Content-Language': 'en',
  'Retry-After': '3599',
  'RateLimit-Policy': '"token";q=1;w=3600, "business";q=100000;w=10',
  RateLimit: '"token";r=0;t=3599, "business";r=99999;t=1',
};

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The floor under any answer of this process: node's HTTP server answering a fixed 429 of the same size.
  const floor = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(429, FLOOR_HEADERS).end(FLOOR_BODY));
  });
  await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
  let phase = '';
  let cpuAtStart = process.cpuUsage();
  let profiling = false;
  process.on('message', (message: { phase?: string; profile?: boolean; stop?: true }) => {
    void (async () => {
      if (message.phase) {
        phase = message.phase;
        profiling = message.profile === true;
        if (profiling) await session.post('Profiler.start');
        cpuAtStart = process.cpuUsage();
        process.send!({ started: phase });
        return;
      }
      const cpu = process.cpuUsage(cpuAtStart);
      if (!profiling) return void process.send!({ phase, cpuMicros: cpu.user + cpu.system });
      const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
      const dir = process.env.CPU_PROFILE_DIR;
      if (dir) writeFileSync(join(dir, `${phase}.cpuprofile`), JSON.stringify(profile), { mode: 0o600 });
      process.send!({ phase, cpuMicros: cpu.user + cpu.system, summary: summarizeProfile(profile) });
    })();
  });
  process.send!({ port: (server.address() as AddressInfo).port, floorPort: (floor.address() as AddressInfo).port });
  process.on('disconnect', () => process.exit(0));
}

void main();
