/**
 * Connects webhooks to the change feed's store (contract §13). Imported for
 * its effect by the functions that read the feed for webhooks
 * (create-webhook-subscription, dispatch-webhooks) and by the local server.
 * Until the feed store is on this branch the source stays unwired (see
 * change-source.ts) and tests substitute their own.
 */
export {};
