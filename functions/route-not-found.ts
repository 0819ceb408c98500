import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { FALLBACK_ROUTE, matchRoute } from '../src/http/routes';
import { methodNotAllowed, routeNotFound } from '../src/http/answers';
import { responseMiddleware } from '../src/http/middleware';

/** API Gateway's $default route: 405 with Allow for a known path, else 404, in the contract's body. */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(responseMiddleware(FALLBACK_ROUTE.name))
  .handler(async (event) => {
    const { allowed } = matchRoute(event.requestContext.http.method, event.rawPath);
    if (allowed.length > 0) throw methodNotAllowed(allowed);
    throw routeNotFound(event.requestContext.http.method, event.rawPath);
  });
