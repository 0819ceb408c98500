import { serviceUnavailable } from '../domain/errors';
import { currentScope, withinScope } from './request-scope';

/**
 * Every request ends inside its deadline (contract §3): the handler starts a
 * deadline from the Lambda context, and every DynamoDB call and retry loop of
 * the request reads it from its scope (src/data/request-scope.ts).
 * Outside a request (admin tool, tests calling the data layer) there is none.
 */

/** A client sees 503 + Retry-After within this, whatever keeps failing. */
export const MAX_ANSWER_MS = 5000;
/** Kept free before the function's own timeout, and for building the answer. */
const TIMEOUT_MARGIN_MS = 1000;
const ANSWER_MARGIN_MS = 250;

/**
 * When the data work of a request must be over: the earlier of MAX_ANSWER_MS
 * and the function's timeout less a margin, less the time to answer.
 */
export function requestBudgetMs(remainingInFunctionMs: number): number {
  const answerWithin = Math.min(MAX_ANSWER_MS, remainingInFunctionMs - TIMEOUT_MARGIN_MS);
  return Math.max(0, answerWithin - ANSWER_MARGIN_MS);
}

/**
 * When a write already sent must be over (its answer awaited, or its outcome
 * found out): the function's timeout less the margins. A write in flight that
 * proves applied is answered as such, late, rather than 503 (a write that
 * happened is never reported failed); only starting attempts and pausing
 * between them keep to requestBudgetMs.
 */
export function requestHardBudgetMs(remainingInFunctionMs: number): number {
  return Math.max(0, remainingInFunctionMs - TIMEOUT_MARGIN_MS - ANSWER_MARGIN_MS);
}

export function runWithDeadline<T>(budgetMs: number, fn: () => T, hardBudgetMs = budgetMs): T {
  const now = Date.now();
  return withinScope({ deadline: { endsAt: now + budgetMs, hardEndsAt: now + Math.max(budgetMs, hardBudgetMs) } }, fn);
}

/** Runs `fn` (the answer or outcome of a write already sent) against the request's hard deadline. */
export function untilHardDeadline<T>(fn: () => T): T {
  const deadline = currentScope().deadline;
  if (!deadline) return fn();
  return withinScope({ deadline: { endsAt: deadline.hardEndsAt, hardEndsAt: deadline.hardEndsAt } }, fn);
}

/** Milliseconds left for this request's data work; Infinity outside a request. */
export function remainingMs(): number {
  const deadline = currentScope().deadline;
  return deadline ? deadline.endsAt - Date.now() : Infinity;
}

/**
 * Runs `fn` with a deadline `reserveMs` earlier than the request's, keeping
 * that much for what must follow (finding out whether an ambiguous write landed).
 */
export function keepingInReserve<T>(reserveMs: number, fn: () => T): T {
  const deadline = currentScope().deadline;
  if (!deadline) return fn();
  return withinScope({ deadline: { endsAt: deadline.endsAt - reserveMs, hardEndsAt: deadline.hardEndsAt } }, fn);
}

/** Sleeps `ms` if the deadline allows it and `minAfterMs` more; else 503 now rather than later. */
export async function sleepWithin(ms: number, minAfterMs = 50): Promise<void> {
  if (remainingMs() < ms + minAfterMs) throw serviceUnavailable();
  await new Promise((r) => setTimeout(r, ms));
}
