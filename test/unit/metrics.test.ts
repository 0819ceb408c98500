import { recordRequest } from '../../src/http/metrics';

describe('request metrics (EMF)', () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
    jest.restoreAllMocks();
  });

  it('inside Lambda: one EMF document with Requests and Latency by route and status class', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'fn';
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    const lines: string[] = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => lines.push(args.join(' ')));
    recordRequest('get-location', 404, Date.now() - 5);
    log.mockRestore();
    const emf = lines
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return undefined;
        }
      })
      .find((d) => d?._aws);
    expect(emf).toMatchObject({ route: 'get-location', status_class: '4xx', Requests: 1 });
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('HrApi');
    expect(typeof emf.Latency).toBe('number');
  });

  it('outside Lambda: nothing is written', () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    const write = jest.spyOn(process.stdout, 'write');
    const log = jest.spyOn(console, 'log');
    recordRequest('get-location', 200, Date.now());
    expect(write).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });
});
