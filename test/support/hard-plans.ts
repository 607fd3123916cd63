// The hard savings plans of issue 27, as an attacker sends them: one GraphQL document of four aliased
// plans for amounts near 1.1 M over up to 20 offers with a third kept flexible. Used by the plan lane's
// tests and by `npm run bench:overload`. Another base and share give plans that spend their whole work
// budget (near 1.9 M with a fifth flexible: ≈0.45 s each over the tests' sample here), for tests that
// need searches to outlast a deadline: their time is the budget's, not the luck of an amount.
export const hardPlans = (
  seed: number,
  selection = '{ optimal optimalityGap }',
  { base = 1_100_000, flexibleShare = '33' }: { base?: number; flexibleShare?: string } = {},
): string =>
  `{ ${[0, 1, 2, 3]
    .map(
      (k) =>
        `p${k}: plan(amount: "${base + seed * 37 + k * 13}", maxOffers: 20, flexibleShare: "${flexibleShare}") ` +
        selection,
    )
    .join(' ')} }`;

/** Four plans that each stop at the search's work budget, not proven best (see above). */
export const budgetPlans = (seed: number): string =>
  hardPlans(seed, undefined, { base: 1_900_000, flexibleShare: '20' });
