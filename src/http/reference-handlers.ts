import type { RouteName } from './routes';
import { listReference, showReference, type ReferenceKind } from '../services/reference';
import { apiHandler, type LambdaHandler } from './handler';
import { pageRequestOf, pageResult, type PageParams } from './paging';
import { ok } from '../domain/result';
import { queryValidator } from '../schemas/validation';
import validatePageQuery from '../schemas/generated/validate-page-query';

const pageQuery = queryValidator<PageParams>(validatePageQuery);

/** GET /<reference>/{id}: the five reference resources differ only in kind. */
export const showReferenceHandler = (route: RouteName, kind: ReferenceKind): LambdaHandler =>
  apiHandler({ route }, async ({ auth, params }) => {
    const { record, etag } = await showReference(auth.businessId, kind, params.id ?? '');
    return ok(record, { ETag: etag });
  });

/** GET /<reference>: a page of one reference list. */
export const listReferenceHandler = (route: RouteName, kind: ReferenceKind): LambdaHandler =>
  apiHandler({ route, query: pageQuery }, async (request) => {
    const page = pageRequestOf(request.query);
    const { entries, total } = await listReference(request.auth.businessId, kind, page);
    return pageResult(request, page, entries, total);
  });
