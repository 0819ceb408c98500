import { ErrorBody, FieldErrors, PageQuery } from './common';
import { CustomField, Location, PayoutField } from './reference';

/**
 * Every named schema of the API. Handlers validate with these objects and the
 * OpenAPI document is generated from them, so the two cannot disagree.
 * Route rows (lib/routes.ts) refer to them by name.
 */
export const SCHEMAS: Record<string, object> = {
  ErrorBody,
  FieldErrors,
  PageQuery,
  Location,
  PayoutField,
  CustomField,
};
