// Types for the page's GraphQL operations, generated from the public schema (schema.graphql).
// Codegen validates every document against the schema and fails on an invalid one, so a schema change
// that breaks the page breaks `npm run build`. Documents stay strings (documentMode: 'string'): the page
// sends them with fetch and bundles no GraphQL library.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['src/web/api/*.graphql'],
  ignoreNoDocuments: false,
  errorsOnly: true,
  generates: {
    'src/web/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        documentMode: 'string',
        enumType: 'string-literal',
        useTypeImports: true,
        skipTypename: true,
        strictScalars: true,
        scalars: { Decimal: 'string', DateTime: 'string', Date: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
