import {
  ApplicationChange,
  AttachmentChange,
  ChangeEntry,
  ChangePage,
  ChangesQuery,
  DeletionChange,
  EmployeeChange,
  EmployeeJobChange,
  ImportChange,
} from './changes';
import { ErrorBody, FieldErrors, PageQuery } from './common';
import { CustomField, Location, PayoutField } from './reference';
import { Application, ApplicationCreate, ApplicationQuery, ApplicationUpdate } from './applications';
import {
  Employee,
  EmployeeCreate,
  EmployeeJob,
  EmployeeJobCreate,
  EmployeeJobQuery,
  EmployeeQuery,
  EmployeeShowQuery,
  EmployeeUpdate,
} from './employees';
import { Export, ExportCreate, ExportCreated } from './exports';
import { Import, ImportCreate, ImportCreated, ImportResultLine } from './imports';
import {
  WebhookDelivery,
  WebhookPing,
  WebhookPingEntry,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionCreated,
  WebhookSubscriptionResume,
} from './webhooks';
import { Attachment, AttachmentCreate, AttachmentCreated } from './attachments';

/**
 * Every named schema of the API. Handlers validate with these objects and the
 * OpenAPI document is generated from them, so the two cannot disagree.
 * Route rows (src/http/routes.ts) refer to them by name.
 */
export const SCHEMAS: Record<string, object> = {
  ErrorBody,
  FieldErrors,
  PageQuery,
  Location,
  PayoutField,
  CustomField,
  ApplicationCreate,
  ApplicationUpdate,
  Application,
  ApplicationQuery,
  EmployeeCreate,
  EmployeeUpdate,
  Employee,
  EmployeeQuery,
  EmployeeShowQuery,
  EmployeeJobCreate,
  EmployeeJob,
  EmployeeJobQuery,
  ChangesQuery,
  ChangePage,
  WebhookSubscriptionCreate,
  WebhookSubscriptionCreated,
  WebhookSubscription,
  WebhookSubscriptionResume,
  WebhookDelivery,
  WebhookPing,
  AttachmentCreate,
  AttachmentCreated,
  Attachment,
  ExportCreate,
  ExportCreated,
  Export,
  ImportCreate,
  ImportCreated,
  Import,
  ImportResultLine,
  // The body of a webhook delivery (the document's `webhooks`): one change-feed entry, or a ping.
  ChangeEntry,
  EmployeeChange,
  EmployeeJobChange,
  ApplicationChange,
  AttachmentChange,
  DeletionChange,
  ImportChange,
  WebhookPingEntry,
};
