//! Test guests, kept out of the verifier's package so that its default build holds only what
//! validates blocks. Each binary is a small program the host builds for the VM
//! (`prover::guest::Program`), executes or proves, and checks:
//!
//! - `keccak_alignment`: the keccak path (`xorin` and the sponge) under every placement the
//!   sponge meets, asserted in the VM and then proved (`tests/tests/prove.rs`);
//! - `keccak_aligned`: keccak256 of one aligned buffer, every absorb on the all-aligned path
//!   (the no-regression figure in BENCHMARKS.md);
//! - `code_floor`: a block's witness codes read and hashed, nothing else: the floor a code
//!   category is measured against (`host worst --floor`);
//! - `crypto_check`: the guest's cryptography on OpenVM's chips against revm's software, record
//!   by record (`crypto::check`; `tests/tests/crypto.rs`).
//!
//! The library is empty: the binaries are the package.
#![no_std]
