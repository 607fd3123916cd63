// The operation sofa projects for a root field: every argument as a variable (with the argument's
// default), every field of the result selected, as sofa's own REST routes would run it. The routes that
// are one root field's value use it, so a field added to the schema appears in REST without more code.
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
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

/**
 * One fixed operation over a root field for a route that reads it its own way (the CSV export pages
 * through the list, the feed takes its newest entries): the route's parameters as variables of the
 * argument's type, plus `extra` variables (`page: Int`), and the selection the route shapes its answer from.
 */
export function fieldOperation(
  schema: GraphQLSchema,
  field: string,
  params: readonly { name: string }[],
  extra: Readonly<Record<string, string>>,
  selection: string,
): DocumentNode {
  const args = schema.getQueryType()!.getFields()[field]!.args;
  const argTypes = new Map(args.map((a): [string, string] => [a.name, String(a.type).replace(/!$/, '')]));

  const variables = [...Object.keys(extra), ...params.map((p) => p.name)];
  const typeOf = (name: string) => extra[name] ?? argTypes.get(name) ?? 'String';
  return parse(
    `query ${field}Route(${variables.map((n) => `$${n}: ${typeOf(n)}`).join(', ')}) {\n` +
      `  ${field}(${variables.map((n) => `${n}: $${n}`).join(', ')}) { ${selection} } }`,
  );
}
