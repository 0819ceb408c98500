import tseslint from 'typescript-eslint';

/**
 * Layers point one way (docs/architecture.md):
 *   domain <- schemas <- data <- services <- http (+ openapi) <- functions; lib/ and scripts/ on top.
 * Each folder lists the layers above it; importing one of them fails `npm run lint`.
 * The regexes match relative specifiers at any depth (`../http/x`, `../../src/http/x`).
 */
const layer = (...names) => `^(\\.\\./)+(src/)?(${names.join('|')})(/|$)`;
const OUTSIDE_RUNTIME = layer('lib', 'scripts', 'bin', 'test', 'functions', 'client');
/** The list engine (src/data/lists/) has one door, its index: nothing outside the folder imports what is inside. */
const LIST_ENGINE_DOOR = {
  regex: '(^|/)lists/(?!index$)[^/]+$',
  message: 'The list engine has one door: import src/data/lists (its index), not a module inside it.',
};
const rule = (files, regexes, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...regexes.map((regex) => ({ regex, message: 'Layers point one way: see docs/architecture.md.' })),
          ...extra,
          LIST_ENGINE_DOOR,
        ],
      },
    ],
  },
});

export const LAYER_RULES = [
  rule(
    ['src/domain/**/*.ts'],
    ['^\\.\\./'],
    [
      {
        regex: '^(@aws-sdk|@middy|ajv|aws-lambda)',
        message: 'domain/ is pure logic: no I/O, schema compiler or HTTP types.',
      },
    ],
  ),
  // Errors are data every layer may throw: the module imports nothing at all.
  rule(['src/domain/errors.ts'], ['.'], []),
  rule(['src/schemas/**/*.ts'], [layer('data', 'services', 'http', 'openapi'), OUTSIDE_RUNTIME]),
  rule(['src/data/**/*.ts'], [layer('services', 'http', 'openapi'), OUTSIDE_RUNTIME]),
  rule(['src/services/**/*.ts'], [layer('http', 'openapi'), OUTSIDE_RUNTIME]),
  rule(['src/http/**/*.ts'], [layer('openapi'), OUTSIDE_RUNTIME]),
  rule(['src/openapi/**/*.ts'], [layer('data', 'services'), OUTSIDE_RUNTIME]),
  // Handlers reach what is below through src/http and src/services; of the schemas, only their route's own
  // generated validator (src/http/validation.ts builds the check from it), so a bundle holds what it checks.
  rule(
    ['functions/**/*.ts'],
    [layer('lib', 'scripts', 'bin', 'test', 'client', 'domain', 'data', 'schemas(?!/generated/)')],
  ),
  // The client package (client/) is published on its own: it knows the service only by the served document.
  rule(['client/**/*.ts', 'client/**/*.mjs'], [layer('src', 'lib', 'scripts', 'bin', 'test', 'functions')]),
];

/**
 * Each entity owns its keys (src/data/entities/): the attribute names of the
 * index keys (ListPK/ListSK, SubPK/SubSK, StatusPK/StatusSK, UpdatedPK/UpdatedSK) and the list index names appear
 * only there and in the table definition, never as a string, property or
 * template anywhere else.
 */
const RAW_INDEX_ATTRIBUTE = '/\\b(List|Sub|Status|Updated)(PK|SK)\\b/';
const INDEX_ATTRIBUTE_MESSAGE = 'Raw index attribute: use the entity module (src/data/entities/) that owns the key.';
/** The list index names likewise: a query or a grant names the access pattern, whose entity names the index. */
const RAW_INDEX_NAME = '/^(list|sublist|statuslist|updatedlist)-keys$/';
const INDEX_NAME_MESSAGE =
  'Raw index name: use the access pattern of the entity module (src/data/entities/) that reads it.';
/**
 * The table's own key attributes (PK/SK) in an expression (`attribute_not_exists(PK)`, `PK = :p`): stores use
 * IF_ABSENT / IF_PRESENT / partitionQuery / tableKeyOf of src/data/entities/entity.ts.
 */
const RAW_TABLE_KEY_EXPRESSION = '/\\b(PK|SK)\\b *(=|<|>|,|BETWEEN)|(exists|begins_with)\\((PK|SK)\\b/';
const TABLE_KEY_MESSAGE = 'Raw table key attribute in an expression: use the helpers of src/data/entities/entity.ts.';
export const INDEX_ATTRIBUTE_RULES = [
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js', '**/*.cjs'],
    ignores: ['src/data/entities/**', 'src/data/dynamo/table-definition.ts', 'test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal[value=', 'TemplateElement[value.raw=', 'Identifier[name='].map((prefix) => ({
          selector: `${prefix}${RAW_INDEX_ATTRIBUTE}]`,
          message: INDEX_ATTRIBUTE_MESSAGE,
        })),
        { selector: `Literal[value=${RAW_INDEX_NAME}]`, message: INDEX_NAME_MESSAGE },
        ...['Literal[value=', 'TemplateElement[value.raw='].map((prefix) => ({
          selector: `${prefix}${RAW_TABLE_KEY_EXPRESSION}]`,
          message: TABLE_KEY_MESSAGE,
        })),
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      'coverage/',
      '.dynamodb/',
      '.cache/',
      'jest.config.js',
      'src/schemas/generated/',
      'src/openapi/generated/',
      'client/dist/',
      'client/src/schema.ts',
      'client/src/operations.ts',
    ],
  },
  ...tseslint.configs.recommended,
  { rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }] } },
  ...LAYER_RULES,
  ...INDEX_ATTRIBUTE_RULES,
);
