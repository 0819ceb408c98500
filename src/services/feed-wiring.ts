/**
 * Connects webhooks to the change feed (contract §13): the dispatcher and the
 * create route read the feed store through `feedChangeSource`, so a delivery
 * body is exactly one feed entry. Imported for its effect by the functions
 * that read the feed for webhooks (create-webhook-subscription,
 * dispatch-webhooks) and by the local server.
 */
import { useChangeSource } from './change-source';
import { feedChangeSource } from './changes';

useChangeSource(feedChangeSource);
