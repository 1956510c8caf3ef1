import { describe, expect, it } from 'vitest';
import { checkAnswer } from './input-form.ts';

const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number' },
    agree: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'] },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    tags: { type: 'array', items: { enum: ['a', 'b'] } },
  },
  required: ['name', 'age'],
};

describe('an answer checked against the form', () => {
  it.each([
    [
      'every field of its type',
      { name: 'Ada', age: 36, score: 1.5, agree: true, color: 'red', size: 'l', tags: ['a'] },
    ],
    ['a required field with a default left out', { name: 'Ada' }],
    ['an empty list', { name: 'Ada', tags: [] }],
  ])('takes %s', (_label, content) => {
    expect(checkAnswer(FORM, content)).toEqual({ ok: true, content });
  });

  it.each([
    ['not an object', ['Ada'], "content must be an object of the form's fields"],
    ['a required field left out', { age: 3 }, '"name" is required'],
    [
      'a field the form does not have',
      { name: 'Ada', nick: 'A' },
      'the form has no field "nick" (its fields: name, age, score, agree, color, size, tags)',
    ],
    ['a string for a number', { name: 'Ada', score: '1' }, '"score" must be a number'],
    ['a fraction for an integer', { name: 'Ada', age: 1.5 }, '"age" must be an integer'],
    ['a number for a string', { name: 7 }, '"name" must be a string'],
    ['a string for a boolean', { name: 'Ada', agree: 'yes' }, '"agree" must be true or false'],
    [
      'a value outside the enum',
      { name: 'Ada', color: 'blue' },
      '"color" must be one of "red", "green"',
    ],
    [
      'a value outside the titled enum',
      { name: 'Ada', size: 'm' },
      '"size" must be one of "s", "l"',
    ],
    [
      'a list item outside its enum',
      { name: 'Ada', tags: ['c'] },
      '"tags": "c" is not one of a, b',
    ],
    ['a list of numbers', { name: 'Ada', tags: [1] }, '"tags" must be an array of strings'],
  ])('refuses %s', (_label, content, message) => {
    expect(checkAnswer(FORM, content)).toEqual({ ok: false, message });
  });
});
