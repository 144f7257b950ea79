//! What a job's proof must reveal, computed natively from the job's own stdin: the final check
//! that binds a proof to the input it was asked for.
//!
//! A proof that verifies against the guest's commitments says only "this guest, run on some
//! stdin, revealed these values". The service hands a proof to whoever uploaded one stdin, so
//! the values must be that stdin's: the standard guest's 43-byte `StatelessValidationResult`
//! (then zero bytes), or the block guest's [`program::PublicValues`], each computed here by the
//! same `program` code the guest runs, from the very bytes the job holds.

use prover::guest::{Program, STANDARD_PUBLIC_VALUES};

/// Why a stdin has no proof to expect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoProof {
    /// The program reads another number of stdin buffers.
    #[error("the {program} guest reads {wanted} stdin buffer(s); this stdin has {given}")]
    Buffers {
        /// The program's binary.
        program: &'static str,
        /// What it reads.
        wanted: &'static str,
        /// What the stdin holds.
        given: usize,
    },
    /// The block guest's input does not decode.
    #[error("the block guest's input does not decode: {0}")]
    Input(String),
    /// The block is not valid: the block guest ends without public values, so nothing is proved.
    #[error("the block is not valid ({0}): the block guest proves valid blocks only")]
    Invalid(String),
    /// A program no job runs.
    #[error("guest `{0}` is not a program jobs run")]
    Program(String),
}

/// The public values a proof of `program` on the stdin buffers `input` must reveal.
pub fn public_values(program: Program, input: &[Vec<u8>]) -> Result<Vec<u8>, NoProof> {
    match program {
        Program::Standard => {
            let [bytes] = input else {
                return Err(NoProof::Buffers {
                    program: program.bin(),
                    wanted: "one",
                    given: input.len(),
                });
            };
            let result = program::standard::validate(bytes, &stateless_ssz::Sha2Hasher).result;
            let mut public = result.to_bytes().to_vec();
            public.resize(STANDARD_PUBLIC_VALUES, 0);
            Ok(public)
        }
        Program::Guest => {
            let guest = program::input::GuestInput::from_items(input)
                .map_err(|e| NoProof::Input(e.to_string()))?;
            let out = guest
                .validate()
                .map_err(|e| NoProof::Invalid(e.to_string()))?;
            Ok(program::PublicValues::new(&out, &guest.chain)
                .to_bytes()
                .to_vec())
        }
        other => Err(NoProof::Program(other.bin().to_owned())),
    }
}
