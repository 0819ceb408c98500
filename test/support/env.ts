/**
 * One environment variable set for a whole test file and put back afterwards
 * (jest runs several files in one worker process, which shares process.env).
 * Call at the top level, before the file's own beforeAll, so it is set first.
 */
export function setEnvForFile(name: string, value: string): void {
  const previous = process.env[name];
  beforeAll(() => {
    process.env[name] = value;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  });
}
