import fc from 'fast-check';
import { keepAtMost } from '../../src/domain/bounded-map';

describe('keepAtMost (what a warm instance keeps in memory)', () => {
  it('never holds more than its bound, keeps the newest key and forgets the least recently kept first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        (max, keys) => {
          const map = new Map<number, number>();
          const order: number[] = []; // a model: least recently kept first
          keys.forEach((key, i) => {
            expect(keepAtMost(map, max, key, i)).toBe(i);
            if (order.includes(key)) order.splice(order.indexOf(key), 1);
            order.push(key);
            if (order.length > max) order.shift();
            expect(map.size).toBeLessThanOrEqual(max);
            expect(map.get(key)).toBe(i);
          });
          expect([...map.keys()]).toEqual(order);
        },
      ),
    );
  });
});
