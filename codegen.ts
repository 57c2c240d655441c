// npm run codegen: resolver types from schema/ (mapped to the Prisma models, so
// resolvers are checked against both), and typed documents for the operations
// that tests and load scripts send. Output is committed; `npm test` fails when
// it is stale (test/graphql/codegen.test.ts).
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema/*.graphql',
  documents: ['test/**/*.graphql', 'k6/**/*.graphql'],
  emitLegacyCommonJSImports: false,
  generates: {
    'src/generated/graphql/resolvers.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useIndexSignature: false,
        contextType: '../../graphql/context.ts#GraphQLContext',
        mapperTypeSuffix: 'Model',
        mappers: {
          Product: '../../catalog/model/types.ts#Product',
          Feature: '../../catalog/model/types.ts#Feature',
          Style: '../../catalog/model/types.ts#Style',
          Photo: '../../catalog/model/types.ts#Photo',
          Sku: '../../catalog/model/types.ts#Sku',
          ProductConnection: '../../graphql/browse-models.ts#ProductConnectionModel',
          SearchConnection: '../../graphql/browse-models.ts#SearchConnectionModel',
          ProductChange: '../../graphql/subscriptions/event.ts#ProductChangeEvent',
        },
        scalars: { Money: 'string', DateTime: 'Date | string', ID: 'string' },
        useTypeImports: true,
        enumsAsTypes: true,
        avoidOptionals: false,
        importExtension: '.ts',
      },
    },
    'src/generated/graphql/operations/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false, persistedDocuments: true },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { Money: 'string', DateTime: 'string', ID: 'string' }, importExtension: '.ts' },
    },
  },
  hooks: {},
};

export default config;
