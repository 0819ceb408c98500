/**
 * The public path prefix of every API route. It lives below the route table so
 * services can build Location headers without importing the http layer.
 */
export const API_PREFIX = '/services/api/v1';
