import { instanceCount, MAX_INSTANCES } from '../../scripts/lib/instances';

describe('INSTANCES (npm start, contract §18)', () => {
  it('is 1 unset, the number given from 1 to 16, else one line saying what is wrong', () => {
    expect(instanceCount(undefined)).toBe(1);
    expect(instanceCount('')).toBe(1);
    expect(instanceCount('4')).toBe(4);
    expect(instanceCount(String(MAX_INSTANCES))).toBe(16);
    for (const bad of ['0', '17', '-1', '2.5', 'four', ' '])
      expect(instanceCount(bad)).toBe(`INSTANCES must be a whole number from 1 to 16, got ${JSON.stringify(bad)}`);
  });
});
