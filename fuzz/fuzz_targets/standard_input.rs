//! `cargo fuzz run standard_input`: any bytes through the standard entry
//! (`program::standard::validate`, what the standard guest runs), which must not panic and
//! must give the result the reference gives (`src/reference.rs`): the 43 zero bytes for
//! bytes that do not decode, else the same request root, chain id, schema id and verdict.
//! Seed it with real inputs (`fuzz/seed-corpus.sh`): random bytes seldom decode.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stateless_ssz::Sha2Hasher;
use stateless_verifier_fuzz::reference::expected;

fuzz_target!(|bytes: &[u8]| {
    let subject = program::standard::validate(bytes, &Sha2Hasher);
    let expected = expected(bytes);
    if subject.result != expected.result() {
        panic!(
            "{}validate: {:?} ({:?}); reference: {:?}",
            if subject.result.successful_validation {
                "SOUNDNESS: "
            } else {
                ""
            },
            subject.result,
            subject.error(),
            expected
        );
    }
});
