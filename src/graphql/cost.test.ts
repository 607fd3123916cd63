import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateCost } from './cost.js';
import { schema } from './schema/index.js';

function cost(query: string, variables: Record<string, unknown> = {}): number {
  const document = parse(query);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = document.definitions.filter(
    (d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION,
  );
  return estimateCost(schema, operation, fragments, variables);
}

describe('estimateCost', () => {
  it('counts each field once and each list item as often as the list is long', () => {
    // a field costs (list length) × (1 + what it selects)
    expect(cost('{ changes(limit: 10) { items { id kind } } }')).toBe(1 + 10 * (1 + 2));
    expect(cost('{ changes { items { id } } }')).toBe(1 + 50 * (1 + 1)); // the default limit
  });

  it('grows with the page size, including from variables', () => {
    const q = 'query($n: Int) { products(pageSize: $n) { items { id name } } }';
    expect(cost(q, { n: 500 })).toBe(1 + 500 * 3);
    expect(cost(q, { n: 50 })).toBe(1 + 50 * 3);
    expect(cost(q, {})).toBe(cost(q, { n: 50 }));
  });

  it('counts the detail batch by the number of ids, and steps only in the detail', () => {
    const detail = (n: number) =>
      cost('query($ids: [ID!]!) { offers(ids: $ids) { offer { calc { steps { month } } } } }', {
        ids: Array.from({ length: n }, (_, i) => `o${i}`),
      });
    expect(detail(20)).toBe(20 * detail(1));
    const inList = cost('{ products(pageSize: 10) { items { calc { steps { month } } } } }');
    expect(inList).toBe(1 + 10 * (1 + (1 + 0)));
    expect(detail(1)).toBe(1 + (1 + (1 + 600 * (1 + 1))));
  });

  it('charges a plan for its search, its allocations maxOffers times, and no calc steps', () => {
    const q =
      'query($n: Int) { plan(amount: "1", maxOffers: $n) ' +
      '{ allocations { amount offer { calc { steps { month } } } } } }';
    // plan: 200,000 + n × allocation (1 + amount 1 + offer (1 + calc (1 + steps 0)))
    expect(cost(q, { n: 3 })).toBe(200_000 + 3 * (1 + 1 + (1 + (1 + 0))));
    expect(cost(q, {})).toBe(200_000 + 5 * 4); // the default maxOffers
  });

  it('counts aliases and fragments', () => {
    const one = cost('{ changes(limit: 5) { items { id } } }');
    expect(cost('{ a: changes(limit: 5) { items { id } } b: changes(limit: 5) { items { id } } }')).toBe(2 * one);
    expect(cost('{ changes(limit: 5) { items { ...F } } } fragment F on ChangeEvent { id }')).toBe(one);
  });
});
