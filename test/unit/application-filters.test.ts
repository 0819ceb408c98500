import { listFilterOf } from '../../src/http/application-query';
import { FieldError } from '../../src/domain/errors';
import { APPLICATION_FILTERS, type ApplicationFilterName } from '../../src/schemas/application-filters';
import { ApplicationQuery } from '../../src/schemas/applications';

const names = Object.keys(APPLICATION_FILTERS) as ApplicationFilterName[];
const sample = (name: ApplicationFilterName): string =>
  APPLICATION_FILTERS[name].match === 'since' ? '2024-03-01' : `value-of-${name}`;

describe('application list filters', () => {
  it('every declared filter is a query parameter and reaches the service', () => {
    for (const name of names) expect(ApplicationQuery.properties).toHaveProperty(name);
    const filter = listFilterOf(Object.fromEntries(names.map((n) => [n, sample(n)])));
    expect(Object.keys(filter).sort()).toEqual([...names].sort());
    for (const name of names)
      expect(filter[name]).toBe(
        APPLICATION_FILTERS[name].match === 'since' ? '2024-03-01T00:00:00.000Z' : `value-of-${name}`,
      );
    expect(listFilterOf({ page: 2, per_page: 5 })).toEqual({});
  });

  it('names every malformed timestamp in one 400', () => {
    const since = names.filter((n) => APPLICATION_FILTERS[n].match === 'since');
    let thrown: unknown;
    try {
      listFilterOf(Object.fromEntries(since.map((n) => [n, 'yesterday'])));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FieldError);
    expect((thrown as FieldError).status).toBe(400);
    expect(Object.keys((thrown as FieldError).fields).sort()).toEqual([...since].sort());
  });
});
