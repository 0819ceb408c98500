import { localeProperties } from './common';

export const Location = {
  type: 'object',
  required: [
    'id',
    'depth',
    'ancestor_id',
    'ancestor_ids',
    'subtree_ids',
    'has_public_name',
    'display_name',
    'is_sub_business',
  ],
  properties: {
    id: { type: 'string' },
    depth: { type: 'integer', minimum: 0, description: '0 for a root' },
    ancestor_id: { type: ['string', 'null'], description: 'The parent location' },
    ancestor_ids: { type: 'array', items: { type: 'string' }, description: 'All ancestors, root first' },
    subtree_ids: {
      type: 'array',
      items: { type: 'string' },
      description: 'The location itself and all its descendants',
    },
    has_public_name: { type: 'boolean' },
    display_name: { type: 'string', description: "Name in the business's preferred language" },
    country: { type: ['string', 'null'] },
    postal_code: { type: ['string', 'null'] },
    is_sub_business: { type: 'boolean' },
    ...localeProperties('name', 'public_name', 'region', 'city', 'street', 'sub_business_title'),
  },
  additionalProperties: false,
} as const;

const valueObject = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' }, ...localeProperties('label') },
  additionalProperties: false,
} as const;

const fieldDefinitionProperties = {
  id: { type: 'string' },
  accessor: { type: 'string', description: 'cf_{id} for custom types, the type name for named payout types' },
  values: { anyOf: [{ type: 'null' }, { type: 'array', items: valueObject }] },
} as const;

export const PayoutField = {
  type: 'object',
  required: ['id', 'type_of', 'accessor', 'values'],
  properties: {
    ...fieldDefinitionProperties,
    type_of: { type: 'string' },
    ...localeProperties('name', 'hint', 'placeholder'),
  },
  additionalProperties: false,
} as const;

export const CustomField = {
  type: 'object',
  required: ['id', 'type_of', 'accessor', 'values', 'required'],
  properties: {
    ...fieldDefinitionProperties,
    type_of: {
      enum: [
        'text',
        'currency',
        'integer',
        'float',
        'select_single',
        'select_multiple',
        'select_radio',
        'checkbox',
        'date',
        'datetime',
      ],
    },
    required: { type: 'boolean' },
    ...localeProperties('name', 'hint', 'placeholder'),
  },
  additionalProperties: false,
} as const;
