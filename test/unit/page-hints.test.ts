import { forgetPageHints, pageHintOf, rememberPageHint, type PageHint } from '../../src/data/lists/hints';
import { summaryOf } from '../../src/domain/list-map';

const hint = (n: number): PageHint => ({
  config: { id: `b${n}` } as unknown as PageHint['config'],
  summary: summaryOf({ [`l#${n}`]: 1 }),
});

beforeEach(() => forgetPageHints());

describe('page hints (which maps go out with the summary)', () => {
  it('returns the last summary read for a list, per list', () => {
    rememberPageHint('B#a#counter#applications', hint(1), 0);
    rememberPageHint('B#b#counter#applications', hint(2), 0);
    rememberPageHint('B#a#counter#applications', hint(3), 0);
    expect(pageHintOf('B#a#counter#applications', 0)?.summary.live.length).toBe(4);
    expect(pageHintOf('B#b#counter#applications', 0)?.summary.live.length).toBe(3);
    expect(pageHintOf('B#c#counter#applications', 0)).toBeUndefined();
  });

  it('forgets a hint older than ten minutes', () => {
    rememberPageHint('list', hint(1), 0);
    expect(pageHintOf('list', 10 * 60_000)).toBeDefined();
    expect(pageHintOf('list', 10 * 60_000 + 1)).toBeUndefined();
  });

  it('keeps at most 500 lists, dropping the least recently read', () => {
    for (let i = 0; i < 500; i++) rememberPageHint(`list${i}`, hint(i), 0);
    rememberPageHint('list0', hint(0), 0); // read again: now the most recent
    rememberPageHint('list500', hint(500), 0);
    expect(pageHintOf('list0', 0)).toBeDefined();
    expect(pageHintOf('list1', 0)).toBeUndefined();
    expect(pageHintOf('list500', 0)).toBeDefined();
  });
});
