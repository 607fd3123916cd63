// The hard savings plans of issue 27, as an attacker sends them: one GraphQL document of four aliased
// plans for amounts near 1.1 M over up to 20 offers with a third kept flexible (seconds of search each).
// Used by the plan lane's tests and by `npm run bench:overload`.
export const hardPlans = (seed: number, selection = '{ optimal optimalityGap }'): string =>
  `{ ${[0, 1, 2, 3]
    .map(
      (k) =>
        `p${k}: plan(amount: "${1_100_000 + seed * 37 + k * 13}", maxOffers: 20, flexibleShare: "33") ${selection}`,
    )
    .join(' ')} }`;
