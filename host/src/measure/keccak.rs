//! The keccak census: what the sponge did in a block (XORIN calls by class, bytes XORed in
//! software or staged, KECCAKF calls, heap), counted by the guest itself (`mpt` feature
//! `census`) and revealed after the block's public values.

use serde::Serialize;

use crate::native::NativeRun;
use prover::guest::{Crypto, GuestSpec, Instrument, Keccak, CENSUS_PUBLIC_VALUES, PUBLIC_VALUES};
use prover::vm::{run_block, VmRunError};

/// A census run's result.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CensusReport {
    /// The variant.
    pub keccak: Keccak,
    /// XORIN calls by class, software and staged bytes, KECCAKF calls, keccak heap bytes.
    pub census: CensusCounts,
    /// The guest's total heap use, bytes (input included).
    pub guest_heap_bytes: u64,
}

/// [`mpt::keccak::census::Census`] for serde.
#[derive(Debug, Clone, Copy, Serialize)]
#[allow(missing_docs)]
pub struct CensusCounts {
    pub xorin_aligned: u64,
    pub xorin_len_unaligned: u64,
    pub xorin_state_unaligned: u64,
    pub xorin_input_unaligned: u64,
    pub xorin_overlapping: u64,
    pub software_bytes: u64,
    pub staged_bytes: u64,
    pub keccakf: u64,
    pub keccak_heap_bytes: u64,
}

/// The census a census build revealed after the block's public values, and the guest's total
/// heap use (layout: `program::guest`).
pub fn decode_census(public: &[u8]) -> Option<(mpt::keccak::census::Census, u64)> {
    let words = public.get(PUBLIC_VALUES..CENSUS_PUBLIC_VALUES)?;
    let mut w = words
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let counters: [u64; 9] = core::array::from_fn(|_| w.next().unwrap_or_default());
    Some((mpt::keccak::census::Census::from_words(counters), w.next()?))
}

/// Runs the census build of `keccak`'s guest on a block the native run found valid.
pub fn run_census(run: &NativeRun, keccak: Keccak) -> Result<CensusReport, VmRunError> {
    let spec = GuestSpec::block(keccak, Crypto::Openvm).instrumented(Instrument::KeccakCensus);
    eprintln!(
        "executing block {} in the VM (census, keccak {}) ...",
        run.data.id,
        keccak.name()
    );
    let public = run_block(run, spec, false, &[])?.public;
    let (c, guest_heap_bytes) = decode_census(&public).ok_or(VmRunError::CensusMissing {
        got: public.len(),
        expected: spec.public_values(),
    })?;
    Ok(CensusReport {
        keccak,
        census: CensusCounts {
            xorin_aligned: c.aligned,
            xorin_len_unaligned: c.len_unaligned,
            xorin_state_unaligned: c.state_unaligned,
            xorin_input_unaligned: c.input_unaligned,
            xorin_overlapping: c.overlapping,
            software_bytes: c.software_bytes,
            staged_bytes: c.staged_bytes,
            keccakf: c.keccakf,
            keccak_heap_bytes: c.heap_bytes,
        },
        guest_heap_bytes,
    })
}
