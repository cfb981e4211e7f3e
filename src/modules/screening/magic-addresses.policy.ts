/** Sandbox magic addresses for the OpenAPI description (the simulator decides by the last 4 characters). */
export const SANDBOX_SUFFIXES = {
  '9999': 'severe, sanctions hit, direct sanctions exposure',
  '8888': 'high, indirect mixer exposure (35%)',
  '7777': 'medium, gambling',
  '6666': 'unknown',
  '5555': 'pending, completes as low after SVC_SANDBOX_SCREENING_DELAY_SECONDS',
  '4444': 'failed, Screening provider error',
  '3333': 'low at first, high on every re-screen',
} as const;

/** Valid magic addresses: EVM lowercase (no checksum applies) and solana (base58 of 32 bytes, no checksum). */
export const MAGIC_ADDRESSES = {
  ethereum: Object.fromEntries(Object.keys(SANDBOX_SUFFIXES).map((s) => [s, `0x${'ab'.repeat(18)}${s}`])),
  solana: Object.fromEntries(
    Object.keys(SANDBOX_SUFFIXES).map((s) => [s, `7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCF${s}`]),
  ),
  bitcoin: { '9999': 'bc1qjg6z89y6496cjlgtqj49g7gtsut42gq8j09999' },
} as const;

export const MAGIC_ADDRESS_DOC =
  'Sandbox: the result depends on the last 4 characters: ' +
  Object.entries(SANDBOX_SUFFIXES)
    .map(([s, r]) => `\`${s}\` ${r}`)
    .join('; ') +
  '; anything else low (score 5). Valid magic addresses: EVM chains any lowercase address ending in the suffix ' +
  `(e.g. \`${MAGIC_ADDRESSES.ethereum['9999']}\`); solana \`${MAGIC_ADDRESSES.solana['9999']}\` (and the same with ` +
  `the other suffixes); bitcoin \`${MAGIC_ADDRESSES.bitcoin['9999']}\`.`;
