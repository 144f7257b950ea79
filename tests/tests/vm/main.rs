//! Mainnet block 24171384, the default devnet block and the EEST ecrecover fixture as the guest
//! in the OpenVM VM (CPU): valid, with the public values (block hash, parent hash, post-state
//! root) of the native run, under both keccak variants and both cryptos; and the precompile
//! census; the guest's chain-config commitment; a sample of the EF blockchain tests.
//! The first run builds the guest ELFs with openvm-build (minutes); later runs reuse them.
//!
//! One test binary (each links the whole stack); a module per claim.

mod blocks;
mod ef;
mod elf;
mod profile;
mod verdicts;
