import { describe, expect, it } from 'vitest';
import { inWords } from '../../packages/dashboard/src/ui/words';

describe('form messages in words', () => {
  it('says schema messages as a form would, and keeps the API sentences', () => {
    expect(inWords('Field required')).toBe('Required');
    expect(inWords('String should have at least 1 character')).toBe('Required');
    expect(inWords('String should have at least 5 characters')).toBe('Enter at least 5 characters');
    expect(inWords("String should match pattern '^[0-9]{4}$'")).toBe('This format is not accepted here');
    expect(inWords('IBAN check digits are wrong')).toBe('IBAN check digits are wrong');
  });
});
