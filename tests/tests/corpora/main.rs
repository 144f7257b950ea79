//! The test corpora, run statelessly through `host::ef_tests`: the Ethereum Foundation's
//! blockchain tests ([`ef_tests`]), the EEST blockchain fixtures ([`eest_blockchain`]) and the
//! EEST zkEVM worst-compute fixtures ([`eest_zkevm`]), each with its fixture's verdict.
//!
//! One test binary (each links the whole stack); a module per corpus.

mod eest_blockchain;
mod eest_zkevm;
mod ef_tests;
