//! secp256k1 public-key recovery (`ecrecover`) on OpenVM's modular-arithmetic and
//! short-Weierstrass extensions.
//!
//! In software on riscv32 one recovery costs ~11.6 M guest instructions (pure-Rust k256); the
//! extensions do the field and curve arithmetic in dedicated chips. OpenVM ships a k256
//! drop-in (`openvm-k256`) only in its git repository, not on crates.io, and this project
//! patches no crate by git; so the curve is declared here with the published 2.0.2 macros
//! (`moduli_declare!`, `sw_declare!`) and recovered with `openvm-ecc-guest`'s ECDSA.
//!
//! Off the zkVM the same macros generate software arithmetic, so [`recover_address`] runs
//! (slowly) on the host too, and is checked there against k256.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod provider;
pub mod secp256k1;

pub use provider::{install, OpenVmSecp256k1};
pub use secp256k1::{recover_address, verify, RecoveryError};
