// The operation sofa projects for a root field: every argument as a variable (with the argument's
// default), every field of the result selected, as sofa's own REST routes would run it. The routes that
// are one root field's value use it, so a field added to the schema appears in REST without more code.
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createSofa } from 'sofa-api';
import { PATHS } from '../request/paths.js';

export function sofaProjection(schema: GraphQLSchema): (field: string) => DocumentNode {
  const sofa = createSofa({ schema, basePath: PATHS.api });
  const documents = new Map<string, DocumentNode>();
  return (field) => {
    let document = documents.get(field);
    if (!document) {
      const operation = buildOperationNodeForField({
        kind: OperationTypeNode.QUERY,
        schema,
        field,
        models: sofa.models,
        ignore: sofa.ignore,
        circularReferenceDepth: sofa.depthLimit,
      });
      document = { kind: Kind.DOCUMENT, definitions: [operation] };
      documents.set(field, document);
    }
    return document;
  };
}
