/**
 * How a route's function declares its query and body validation
 * (src/schemas/validation.ts), for functions/, which import src/http and
 * src/services only; each function imports its own generated validator
 * (src/schemas/generated/) and nothing else of the schemas, so its bundle holds
 * only what it checks.
 */
export { bodyValidator, queryCollector, queryValidator } from '../schemas/validation';
