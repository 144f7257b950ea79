//! EIP-8025 stateless I/O: the bytes a standard stateless guest reads and the 43 bytes it
//! reveals, as Ethereum's execution specs define them (the `stateless` modules of the
//! execution-specs, **tests-zkevm v0.8** revision; the fixtures carry them per block as
//! `statelessInputBytes` / `statelessOutputBytes`).
//!
//! - Input bytes = `schema_id` (u16, big-endian) ‖ `SSZ(StatelessInput)`, where
//!   `schema_id = fork_index << 8 | 0x01` ([`Fork`]) and the payload's shape is the fork's
//!   ([`NewPayloadRequest`]).
//! - Output = `SSZ(StatelessValidationResult)`: 43 bytes ([`StatelessValidationResult`]).
//!
//! Why a crate of its own: the host writes these bytes and the guest reads them, so one
//! definition serves both, and it is `no_std`. The SSZ itself is `libssz` (lambdaclass, the
//! SSZ of ethrex's guest): it covers EIP-7916 progressive lists and EIP-7495 progressive
//! containers, is `no_std`, and takes its SHA-256 as a parameter ([`Sha256Hasher`]), so the
//! guest merkleizes on OpenVM's SHA-256 chip. Nothing of SSZ is written by hand here: this
//! crate declares the containers and what the guest needs around them (the schema id, the
//! fork's shape, limits checked on decoding, the result's sentinel for undecodable input),
//! except the root of a list of bytes ([`ProgressiveByteList`]: `libssz` roots one a byte at
//! a time, and a request is mostly such lists) and two walks of the outer containers:
//! [`InputStream`], the guest's decoder, which reads the input once, front to back, and puts
//! each witness item where its reader wants it (it must not buffer megabytes), and
//! [`InputView`], which leaves the witness in the bytes of an input held whole. Both walks
//! agree with `libssz`'s decoder on every input (ssz/tests/decode.rs), and the root with
//! `libssz`'s and the EIP's (ssz/tests/reference.rs).
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

mod bytes;
mod input;
mod schema;
pub mod source;
pub mod stream;
mod types;
mod view;

pub use input::{
    decode_input, encode_input, InputError, NewPayloadRequest, Payload, Requests, StatelessInput,
};
pub use libssz_merkle::Sha256Hasher;
#[cfg(feature = "std")]
pub use libssz_merkle::Sha2Hasher;
pub use schema::{Fork, Shape, SCHEMA_REVISION};
pub use stream::{decode_streamed, InMemory, InputStream, Source, Tail};
pub use types::*;
pub use view::{InputView, WitnessView};
