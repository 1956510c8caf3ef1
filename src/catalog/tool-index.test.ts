import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS, searchTerms } from './tool-index.ts';

describe('searchTerms', () => {
  it.each([
    ['create issue', ['create', 'issue']],
    ['getPullRequest get_pull_request', ['get', 'pull', 'request']],
    ['Issue ISSUE issue', ['issue']],
    ['', []],
  ])('%j -> %j', (query, terms) => {
    expect(searchTerms(query)).toEqual(terms);
  });

  it('keeps a long query to its first distinct words', () => {
    const query = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    expect(searchTerms(query)).toEqual(
      Array.from({ length: MAX_SEARCH_TERMS }, (_, i) => `word${i}`),
    );
  });
});
