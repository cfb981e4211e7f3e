/**
 * Local verification of ownership proofs (docs/guides/screening.md): EIP-191 `personal_sign` for EVM
 * chains (secp256k1 public-key recovery and keccak-256 from @noble) and ed25519 over the UTF-8
 * message for solana. No provider is involved.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { type Chain, isEvm } from '../../shared/chain-addresses';

/** keccak256("\x19Ethereum Signed Message:\n" + len(message) + message). */
export function eip191Hash(message: string): Uint8Array {
  const body = utf8ToBytes(message);
  return keccak_256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${body.length}`), body));
}

/** The EVM address (lowercase 0x…) of an uncompressed or compressed secp256k1 public key. */
export function evmAddressOfPublicKey(publicKey: Uint8Array): string {
  const point = secp256k1.Point.fromBytes(publicKey);
  const uncompressed = point.toBytes(false);
  return `0x${bytesToHex(keccak_256(uncompressed.slice(1)).slice(-20))}`;
}

/** Recovers the signer of an EIP-191 signature (0x + r‖s‖v hex, v 27/28 or 0/1); null when malformed. */
export function recoverEip191Signer(message: string, signature: string): string | null {
  const hex = signature.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return null;
  try {
    const bytes = hexToBytes(hex.toLowerCase());
    let v = bytes[64]!;
    if (v >= 27) v -= 27;
    if (v !== 0 && v !== 1) return null;
    const sig = secp256k1.Signature.fromBytes(bytes.slice(0, 64), 'compact').addRecoveryBit(v);
    const point = sig.recoverPublicKey(eip191Hash(message));
    return evmAddressOfPublicKey(point.toBytes(false));
  } catch {
    return null;
  }
}

/** Decodes a solana signature given as base58 (wallets' usual form), 0x-hex or base64. */
function decodeEd25519Signature(signature: string): Uint8Array | null {
  const s = signature.trim();
  try {
    if (/^0x[0-9a-fA-F]{128}$/.test(s)) return hexToBytes(s.slice(2).toLowerCase());
    if (/^[0-9a-fA-F]{128}$/.test(s)) return hexToBytes(s.toLowerCase());
    if (/^[1-9A-HJ-NP-Za-km-z]{80,90}$/.test(s)) {
      const b = base58.decode(s);
      if (b.length === 64) return b;
    }
    const b64 = Buffer.from(s, 'base64');
    if (b64.length === 64 && /^[A-Za-z0-9+/]+={0,2}$/.test(s)) return new Uint8Array(b64);
  } catch {
    return null;
  }
  return null;
}

/** True when `signature` over `message` was made by the key controlling `address` on `chain`. */
export function verifyOwnershipSignature(
  chain: Chain,
  address: string,
  message: string,
  signature: string,
): boolean {
  if (isEvm(chain)) {
    const signer = recoverEip191Signer(message, signature);
    return signer !== null && signer === address.toLowerCase();
  }
  if (chain === 'solana') {
    const sig = decodeEd25519Signature(signature);
    if (!sig) return false;
    try {
      const publicKey = base58.decode(address);
      return ed25519.verify(sig, utf8ToBytes(message), publicKey);
    } catch {
      return false;
    }
  }
  return false;
}

/** The sandbox test key: the published development account 0xf39f…2266 (Hardhat/Anvil account #0). */
export const SANDBOX_TEST_PRIVATE_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const SANDBOX_TEST_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** An EIP-191 `personal_sign` signature (0x r‖s‖v, v 27/28) by `privateKeyHex`. */
export function signEip191(message: string, privateKeyHex: string): string {
  const sig = secp256k1.sign(eip191Hash(message), hexToBytes(privateKeyHex), {
    prehash: false,
    format: 'recovered',
  });
  // noble's "recovered" format is recovery‖r‖s; Ethereum wants r‖s‖(27 + recovery).
  const out = concatBytes(sig.slice(1, 65), new Uint8Array([27 + sig[0]!]));
  return `0x${bytesToHex(out)}`;
}
