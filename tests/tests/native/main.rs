//! Validation natively, each claim on real or generated blocks: the block-level rules broken
//! one at a time ([`rules`]), tampered inputs ([`tamper`]), the real mainnet blocks
//! ([`validate_mainnet`]) and their witnesses through the sponge and the trie
//! ([`mainnet_witness`]), the generated devnet ([`devnet`]) and Amsterdam on it
//! ([`amsterdam`]).
//!
//! One test binary (each links the whole stack); a module per claim.

mod amsterdam;
mod devnet;
mod mainnet_witness;
mod rules;
mod tamper;
mod validate_mainnet;
