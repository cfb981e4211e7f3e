/** Per-chain address validation: EIP-55 checksums, base58check, bech32/bech32m, solana base58 of 32 bytes. */
import { describe, expect, it } from 'vitest';
import { MAGIC_ADDRESSES } from '../../src/modules/screening/magic-addresses.policy';
import {
  CHAINS,
  derivedAddress,
  eip55,
  isValidAddress,
  normalizeAddress,
} from '../../src/shared/chain-addresses';

describe('address validation per chain', () => {
  it('EVM: 0x + 40 hex, the EIP-55 checksum checked when the case is mixed', () => {
    const good = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    for (const chain of [
      'ethereum',
      'polygon',
      'bsc',
      'arbitrum',
      'optimism',
      'base',
      'avalanche',
    ] as const) {
      expect(isValidAddress(chain, good)).toBe(true);
      expect(isValidAddress(chain, good.toLowerCase())).toBe(true);
      expect(isValidAddress(chain, `0x${good.slice(2).toUpperCase()}`)).toBe(true);
      expect(isValidAddress(chain, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false);
      expect(isValidAddress(chain, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae')).toBe(false);
      expect(isValidAddress(chain, '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(false);
    }
    expect(eip55(good.toLowerCase())).toBe(good);
    expect(normalizeAddress('ethereum', good)).toBe(good.toLowerCase());
  });

  it("EIP-55: the EIP's own test cases (keccak-256 of the lowercase hex, not SHA3-256)", () => {
    // ethereum/ERCs ERCS/erc-55.md, "Test Cases" (commit 26abfcfdeb2d541c52f725ff74f6d02ec607dd35).
    const cases = [
      '0x52908400098527886E0F7030069857D2E4169EE7', // all caps
      '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      '0xde709f2102306220921060314715629080e2fb77', // all lower
      '0x27b1fdb04752bbc536007a920d24acb045561c26',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', // normal
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ];
    for (const a of cases) {
      expect(eip55(a.toLowerCase()), a).toBe(a);
      expect(eip55(`0x${a.slice(2).toUpperCase()}`), a).toBe(a);
      expect(isValidAddress('ethereum', a), a).toBe(true);
    }
  });

  it('bitcoin: base58check (P2PKH, P2SH) and bech32 v0 / bech32m v1', () => {
    expect(isValidAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(true);
    expect(isValidAddress('bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(true);
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    expect(isValidAddress('bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(true);
    expect(isValidAddress('bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe(
      true,
    );
    // bad checksum, wrong encoding for the version (v1 with bech32), mixed case, another chain's key
    expect(isValidAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toBe(false);
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
    expect(
      isValidAddress('bitcoin', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx'),
    ).toBe(false);
    expect(isValidAddress('bitcoin', 'bc1Qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(false);
    expect(isValidAddress('bitcoin', 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9')).toBe(false);
    expect(isValidAddress('bitcoin', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(false);
  });

  it('litecoin: base58check (L/M/3) and ltc1 segwit', () => {
    expect(isValidAddress('litecoin', 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9')).toBe(true);
    expect(isValidAddress('litecoin', derivedAddress('litecoin', 'x'))).toBe(true);
    expect(isValidAddress('litecoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(false);
    expect(isValidAddress('litecoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(false);
  });

  it('tron: T + base58check with version 0x41', () => {
    expect(isValidAddress('tron', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')).toBe(true);
    expect(isValidAddress('tron', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9')).toBe(false);
    expect(isValidAddress('tron', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(false);
  });

  it('solana: base58 of exactly 32 bytes', () => {
    expect(isValidAddress('solana', 'So11111111111111111111111111111111111111112')).toBe(true);
    expect(isValidAddress('solana', '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCF9999')).toBe(true);
    expect(isValidAddress('solana', 'So1111111111111111111111111111111111111111')).toBe(false);
    expect(isValidAddress('solana', '0OIl1111111111111111111111111111111111111111')).toBe(false);
  });

  it('every published magic address and every sandbox deposit address is valid for its chain', () => {
    for (const [chain, list] of Object.entries(MAGIC_ADDRESSES))
      for (const a of Object.values(list)) expect(isValidAddress(chain as 'bitcoin', a)).toBe(true);
    for (const chain of CHAINS) expect(isValidAddress(chain, derivedAddress(chain, 'seed'))).toBe(true);
  });
});
