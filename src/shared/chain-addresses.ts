/**
 * Per-chain address validation (wallet screening, travel rule, monitoring) with well-kept libraries:
 * EIP-55 checksums (keccak-256 from @noble/hashes), base58check and bech32/bech32m (@scure/base). A
 * wallet is unique per client by (chain, normalized address); only EVM addresses are
 * case-insensitive (lowercased).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';

export const CHAINS = [
  'bitcoin',
  'litecoin',
  'ethereum',
  'polygon',
  'bsc',
  'arbitrum',
  'optimism',
  'base',
  'avalanche',
  'tron',
  'solana',
] as const;
export type Chain = (typeof CHAINS)[number];

export const EVM_CHAINS: readonly Chain[] = [
  'ethereum',
  'polygon',
  'bsc',
  'arbitrum',
  'optimism',
  'base',
  'avalanche',
];

export const isEvm = (chain: Chain) => EVM_CHAINS.includes(chain);

/** Chains whose wallets can sign a message we verify locally (EIP-191 or ed25519). */
export const supportsMessageSigning = (chain: Chain) => isEvm(chain) || chain === 'solana';

/** The native asset of each chain (Satoshi-test deposits are made in it). */
export const NATIVE_ASSET: Record<Chain, string> = {
  bitcoin: 'BTC',
  litecoin: 'LTC',
  ethereum: 'ETH',
  polygon: 'POL',
  bsc: 'BNB',
  arbitrum: 'ETH',
  optimism: 'ETH',
  base: 'ETH',
  avalanche: 'AVAX',
  tron: 'TRX',
  solana: 'SOL',
};

const b58check = createBase58check(sha256);

/** EIP-55 mixed-case checksum of a lowercase 40-hex address (without 0x). */
export function eip55(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++)
    out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

function validEvm(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const body = address.slice(2);
  // All one case: no checksum to check. Mixed case: it must be the EIP-55 checksum.
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return eip55(address) === address;
}

function decodeB58check(address: string): Uint8Array | null {
  try {
    return b58check.decode(address);
  } catch {
    return null;
  }
}

/** Segwit: bech32 for witness version 0, bech32m for versions 1-16 (BIP-173 / BIP-350). */
function validSegwit(address: string, hrp: string): boolean {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
  const a = address.toLowerCase();
  if (!a.startsWith(`${hrp}1`)) return false;
  for (const coder of [bech32, bech32m]) {
    try {
      const { prefix, words } = coder.decode(a as `${string}1${string}`, 90);
      if (prefix !== hrp || words.length < 1) continue;
      const version = words[0]!;
      if (version > 16) return false;
      const program = coder.fromWords(words.slice(1));
      if (program.length < 2 || program.length > 40) return false;
      if (version === 0 && coder !== bech32) return false;
      if (version !== 0 && coder !== bech32m) return false;
      if (version === 0 && program.length !== 20 && program.length !== 32) return false;
      return true;
    } catch {
      // try the other encoding
    }
  }
  return false;
}

/** Base58check payload with one of the version bytes, 21 bytes long (version + 20-byte hash). */
function validB58(address: string, versions: number[]): boolean {
  const bytes = decodeB58check(address);
  return !!bytes && bytes.length === 21 && versions.includes(bytes[0]!);
}

export function isValidAddress(chain: Chain, address: string): boolean {
  if (isEvm(chain)) return validEvm(address);
  switch (chain) {
    case 'bitcoin':
      // P2PKH (1…), P2SH (3…), mainnet segwit bc1…; testnet m/n/2 and tb1 are accepted for sandboxes.
      return (
        validB58(address, [0x00, 0x05, 0x6f, 0xc4]) ||
        validSegwit(address, 'bc') ||
        validSegwit(address, 'tb')
      );
    case 'litecoin':
      return (
        validB58(address, [0x30, 0x32, 0x05, 0x6f, 0x3a]) ||
        validSegwit(address, 'ltc') ||
        validSegwit(address, 'tltc')
      );
    case 'tron':
      return address.startsWith('T') && validB58(address, [0x41]);
    case 'solana':
      try {
        return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address) && base58.decode(address).length === 32;
      } catch {
        return false;
      }
    default:
      return false;
  }
}

/** The wallet's unique key: EVM addresses are case-insensitive, every other encoding is case-sensitive. */
export function normalizeAddress(chain: Chain, address: string): string {
  if (isEvm(chain)) return address.toLowerCase();
  if (/^(bc|tb|ltc|tltc)1/i.test(address)) return address.toLowerCase();
  return address;
}

/** Builders used by the sandbox (deposit addresses) and by tests (magic addresses). */
export function base58checkAddress(version: number, payload20: Uint8Array): string {
  const bytes = new Uint8Array(21);
  bytes[0] = version;
  bytes.set(payload20.slice(0, 20), 1);
  return b58check.encode(bytes);
}

export function segwitAddress(hrp: string, program: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(program)]);
}

/** A deterministic, valid address of `chain` derived from `seed` (sandbox deposit addresses). */
export function derivedAddress(chain: Chain, seed: string): string {
  const h = sha256(utf8ToBytes(seed));
  if (isEvm(chain)) return `0x${bytesToHex(h.slice(0, 20))}`;
  if (chain === 'bitcoin') return segwitAddress('bc', h.slice(0, 20));
  if (chain === 'litecoin') return segwitAddress('ltc', h.slice(0, 20));
  if (chain === 'tron') return base58checkAddress(0x41, h.slice(0, 20));
  return base58.encode(h);
}
