// What the API refuses, said the page's way: the API's errors as the page reads them (problemsOf), then
// as sentences of the page (inPageWords). The error bodies are the service's own, asked of it here.
import { describe, expect, it } from 'vitest';
import { problemsOf } from './api/client.js';
import { formatDateTime } from './format.js';
import { inPageWords } from './problems.js';
import { parseState } from './state.js';

// As the service answers (src/graphql/variable-errors.ts and the argument rules): a value it cannot read
// names the variable in the message and lists it; a value breaking a rule lists it only.
const unreadableAmount = {
  message: 'Variable "$amount" got invalid value "abc"; Decimal must be a decimal number such as "1234.56" (got "abc")',
  extensions: {
    code: 'BAD_USER_INPUT',
    errors: [{ parameter: 'amount', message: 'Decimal must be a decimal number such as "1234.56" (got "abc")' }],
  },
};
const ruleBroken = {
  message: 'Invalid arguments: amount: must not exceed 1000000000; pageSize: must be at most 500',
  path: ['products'],
  extensions: {
    code: 'BAD_USER_INPUT',
    errors: [
      { parameter: 'amount', message: 'must not exceed 1000000000' },
      { parameter: 'pageSize', message: 'must be at most 500' },
    ],
  },
};

describe('problems the API lists', () => {
  it('are marked unreadable when the API could not read the value at all', () => {
    expect(problemsOf([unreadableAmount])).toEqual([
      { parameter: 'amount', message: expect.stringContaining('Decimal must be'), unreadable: true },
    ]);
    expect(problemsOf([ruleBroken]).map((p) => p.unreadable)).toEqual([undefined, undefined]);
  });

  it('without a list, still name the variable', () => {
    const { extensions: _, ...bare } = unreadableAmount;
    expect(problemsOf([bare])).toEqual([{ parameter: 'amount', message: expect.any(String), unreadable: true }]);
  });
});

describe('in the page’s words', () => {
  const state = parseState('?amount=abc&horizon=x&pageSize=900&type=weird');

  it('say what was typed and what to type for an amount that is no number, never the scalar’s message', () => {
    const [problem] = problemsOf([unreadableAmount]);
    const text = inPageWords(problem!, state);
    expect(text).toMatch(/^“abc” is not an amount: type a number of euros, such as \S+ or \S+\.$/);
    expect(text).not.toMatch(/Decimal|got|"/);
  });

  it('put a broken rule in a sentence about the field, numbers grouped in the locale', () => {
    const words = problemsOf([ruleBroken]).map((p) => inPageWords(p, state));
    expect(words[0]).toMatch(
      /^The amount must not exceed 1[,.\s\u00a0\u202f]000[,.\s\u00a0\u202f]000[,.\s\u00a0\u202f]000\.$/,
    );
    expect(words[1]).toBe('The number per page must be at most 500.');
  });

  it('name a whole number or a choice that cannot be read', () => {
    expect(inPageWords({ parameter: 'horizon', message: 'Int cannot represent…', unreadable: true }, state)).toBe(
      'The horizon must be a whole number, not “x”.',
    );
    expect(inPageWords({ parameter: 'type', message: 'Value "WEIRD" does not exist…', unreadable: true }, state)).toBe(
      'The type cannot be “weird”: choose one of the page’s options.',
    );
  });

  it('say a refused date with its instants as the page shows times', () => {
    const refused = {
      message: 'asOf is before the first recorded data (2026-11-01T06:00:00.000Z).',
      path: ['products'],
      extensions: {
        code: 'NOT_FOUND',
        errors: [{ parameter: 'asOf', message: 'is before the first recorded data (2026-11-01T06:00:00.000Z)' }],
      },
    };
    const [problem] = problemsOf([refused]);
    expect(inPageWords(problem!, state)).toBe(
      `The date is before the first recorded data (${formatDateTime('2026-11-01T06:00:00.000Z')}).`,
    );
    expect(
      inPageWords({ parameter: 'asOf', message: 'DateTime must be…', unreadable: true }, parseState('?asOf=soon')),
    ).toBe('The date must be a day, not “soon”.');
  });

  it('leave a problem with no parameter as the API says it', () => {
    expect(inPageWords({ parameter: null, message: 'No offer with id x.' }, state)).toBe('No offer with id x.');
  });
});
