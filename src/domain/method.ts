// The ranking method's version: everything that decides an answer's numbers and its order (the
// calculation, the DGS split, eligibility, the sort and its ties, the plan's search). Every data answer
// states it; docs/calculation.md keeps its changelog, and test/method.test.ts fails when an answer of its
// fixed market moves while this stays the same.
export const METHOD_VERSION = '1.1';
