//! `host fetch` against JSON-RPC servers on 127.0.0.1, honest and lying: a node with the debug
//! namespace ([`debug`]) and nodes with the standard methods only, the witness built from
//! proofs ([`proofs`]).
//!
//! One test binary (each links the whole stack); a module per source of witnesses.

mod debug;
mod proofs;
