/** The template resolver and condition operators (pure functions). */
import { describe, expect, it } from 'vitest';
import { evaluateCondition, resolveTemplates } from '../../src/modules/workflows/workflows-graph.policy';

const ctx = {
  input: { email: 'a@b.c', n: 5, tags: ['x'] },
  steps: { s1: { user_id: 'u1', nested: { ok: true } } },
};

describe('resolveTemplates', () => {
  it('keeps the type of a whole-string template and interpolates inside text', () => {
    expect(resolveTemplates('{{input.n}}', ctx)).toBe(5);
    expect(resolveTemplates('{{ steps.s1.nested }}', ctx)).toEqual({ ok: true });
    expect(resolveTemplates('user {{steps.s1.user_id}} <{{input.email}}>', ctx)).toBe('user u1 <a@b.c>');
    expect(resolveTemplates({ a: ['{{input.tags}}', 1] }, ctx)).toEqual({ a: [['x'], 1] });
  });
  it('missing paths are null or empty; no prototype access, no evaluation', () => {
    expect(resolveTemplates('{{input.missing}}', ctx)).toBeNull();
    expect(resolveTemplates('x{{input.missing}}y', ctx)).toBe('xy');
    expect(resolveTemplates('{{input.constructor}}', ctx)).toBeNull();
    expect(resolveTemplates('{{input.email.length}}', ctx)).toBeNull();
    expect(resolveTemplates('{{ process.exit() }}', ctx)).toBe('{{ process.exit() }}');
  });
});

describe('evaluateCondition', () => {
  it('compares values', () => {
    expect(evaluateCondition('approved', 'eq', 'approved')).toBe(true);
    expect(evaluateCondition(5, 'eq', '5')).toBe(true);
    expect(evaluateCondition('a', 'neq', 'b')).toBe(true);
    expect(evaluateCondition('80', 'gte', 50)).toBe(true);
    expect(evaluateCondition('abc', 'gt', 1)).toBe(false);
    expect(evaluateCondition('b', 'in', ['a', 'b'])).toBe(true);
    expect(evaluateCondition(['x'], 'contains', 'x')).toBe(true);
    expect(evaluateCondition(null, 'exists', undefined)).toBe(false);
    expect(evaluateCondition('', 'not_exists', undefined)).toBe(true);
  });
});
