import { requireAcceptable } from '../src/http/content-negotiation';
import { apiHandler } from '../src/http/handler';
import { ok } from '../src/http/answers';
import { buildOpenApiDocument } from '../src/openapi/build-document';
import { DOCS_CONTENT_SECURITY_POLICY, loadRedocBundle, renderDocsPage } from '../src/openapi/docs-page';

let page: string | undefined;

/**
 * GET /docs: the HTML API reference, Redoc rendering the OpenAPI document, self-contained
 * (no CDN). How the Redoc bundle reaches the Lambda: see src/openapi/docs-page.ts.
 * Rendered on the first request of this process, then served as is.
 */
export const handler = apiHandler({ route: 'get-docs' }, async ({ headers }) => {
  requireAcceptable(headers, 'text/html');
  page ??= renderDocsPage(buildOpenApiDocument(), loadRedocBundle());
  return ok(page, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
    'Cache-Control': 'public, max-age=300',
  });
});
