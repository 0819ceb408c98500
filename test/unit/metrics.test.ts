import { recordRequest } from '../../src/http/metrics';

describe('request metrics (EMF)', () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
    jest.restoreAllMocks();
  });

  it('inside Lambda: Requests and Latency by route and status class, Latency by route group', () => {
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
    const docs = lines
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return undefined;
        }
      })
      .filter((d) => d?._aws);
    expect(docs).toHaveLength(2);
    const [emf, group] = docs;
    expect(emf).toMatchObject({ route: 'get-location', status_class: '4xx', Requests: 1 });
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('HrApi');
    expect(typeof emf.Latency).toBe('number');
    // The route group's latency (the route table's tag) is its own metric: percentiles do not add up across routes.
    expect(group).toMatchObject({ route_group: 'Reference data', Latency: emf.Latency });
    expect(group._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'HrApi',
      Dimensions: [expect.arrayContaining(['service', 'route_group'])],
    });
    expect(group._aws.CloudWatchMetrics[0].Dimensions[0]).toHaveLength(2);
    expect(group.Requests).toBeUndefined();
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
