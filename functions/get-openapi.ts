import { createHash } from 'node:crypto';
import { requireAcceptable } from '../src/http/content-negotiation';
import { apiHandler } from '../src/http/handler';
import { ok } from '../src/http/answers';
import { buildOpenApiDocument } from '../src/openapi/build-document';

let cached: { body: string; etag: string } | undefined;

/** Built on the first request of this process (not at init), then served as is. */
function documentJson(): { body: string; etag: string } {
  if (!cached) {
    const body = JSON.stringify(buildOpenApiDocument());
    cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  }
  return cached;
}

/** GET /services/api/v1/openapi.json: the OpenAPI 3.1 document of every route (contract §12); no token. */
export const handler = apiHandler({ route: 'get-openapi' }, async ({ headers }) => {
  requireAcceptable(headers, 'application/json');
  const { body, etag } = documentJson();
  return ok(body, {
    'Content-Type': 'application/json; charset=utf-8',
    ETag: etag,
    'Cache-Control': 'public, max-age=300',
    'Access-Control-Allow-Origin': '*',
  });
});
