import Ajv2020, { _, type Options } from 'ajv/dist/2020';
import { fullFormats } from 'ajv-formats/dist/formats';
import { FORMATS } from './formats-registry';
import { MAX_DECIMALS, NOT_BLANK, READ_ONLY_FIELDS } from './keywords';

export type ValidatorKind = 'body' | 'query';

/**
 * The schema compiler, used at BUILD time (scripts/build-validators.ts writes
 * standalone validators) and by tests; Lambda bundles never load it.
 * Bodies: exact JSON types. Query strings arrive as text: numbers are coerced,
 * then range-checked. Both report every error (src/schemas/validation.ts relies on
 * it: a null mandatory text fails `type` and NOT_BLANK alike), without the failing
 * schema and data (ajv's `verbose`, which repeated the schema in every error of a
 * generated validator): messages map from keyword and schema path alone.
 */
export function createAjv(kind: ValidatorKind, code?: Options['code']): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    // Ajv's English wording is never shown (src/schemas/validation.ts maps keywords to the contract's): left out
    // of the generated validators, where it repeated every pattern once more.
    messages: false,
    strict: true,
    allowUnionTypes: true,
    coerceTypes: kind === 'query',
    ...(code ? { code } : {}),
  });
  // `uri` (a webhook's url) is an annotation for generic tools: the service's own URL check decides, so that every
  // URL it refuses answers the same `is not allowed` (src/services/webhook-subscriptions.ts).
  const formats = { email: fullFormats.email, 'date-time': fullFormats['date-time'], uri: true, ...FORMATS };
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format as never);
  ajv.addKeyword({
    keyword: NOT_BLANK,
    schemaType: 'boolean',
    // Code, not a validate function, so standalone validators can inline it. Other
    // types are the `type` keyword's business ("is invalid"), not blankness.
    code(cxt) {
      if (cxt.schema !== true) return;
      cxt.fail(_`${cxt.data} === null || (typeof ${cxt.data} == "string" && ${cxt.data}.trim() === "")`);
    },
  });
  ajv.addKeyword({
    keyword: MAX_DECIMALS,
    type: 'number',
    schemaType: 'number',
    // The same rule as src/domain/numbers.ts hasAtMostPlaces, inlined for standalone validators.
    code(cxt) {
      cxt.fail(_`Number(${cxt.data}.toFixed(${cxt.schema as number})) !== ${cxt.data}`);
    },
  });
  ajv.addKeyword({ keyword: READ_ONLY_FIELDS, schemaType: 'array' });
  return ajv;
}
