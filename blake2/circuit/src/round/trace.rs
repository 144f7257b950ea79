//! The round chip's trace: one row per round of each call the op chip recorded.

use std::{
    borrow::BorrowMut,
    sync::{Arc, Mutex},
};

use openvm_circuit_primitives::{bitwise_op_lookup::SharedBitwiseOperationLookupChip, Chip};
use openvm_cpu_backend::CpuBackend;
use openvm_stark_backend::{
    p3_field::{PrimeCharacteristicRing, PrimeField32},
    p3_matrix::dense::RowMajorMatrix,
    p3_maybe_rayon::prelude::*,
    prover::AirProvingContext,
    StarkProtocolConfig, Val,
};

use super::{
    columns::{MixCols, RoundCols, NUM_ROUND_COLS},
    CHUNKS,
};
use crate::reference::{self, MIXINGS, SIGMA};

/// One instruction's work for the round chip: what its row sends on the state bus.
#[derive(Clone, Debug)]
pub struct RoundJob {
    pub timestamp: u32,
    pub rounds: u32,
    pub v: [u64; 16],
    pub m: [u64; 16],
}

/// The calls recorded by the op chip's trace generation, taken by this chip's.
pub type SharedJobs = Arc<Mutex<Vec<RoundJob>>>;

/// The round chip. Its trace is generated after the op chip's (it is added to the inventory
/// before it), from the jobs that chip leaves in [`SharedJobs`], and before the bitwise
/// lookup's, whose multiplicities it requests.
#[derive(Clone, derive_new::new)]
pub struct Blake2bRoundChip {
    pub bitwise_lookup_chip: SharedBitwiseOperationLookupChip<8>,
    pub jobs: SharedJobs,
}

impl<RA, SC> Chip<RA, CpuBackend<SC>> for Blake2bRoundChip
where
    SC: StarkProtocolConfig,
    Val<SC>: PrimeField32,
{
    fn generate_proving_ctx(&self, _: RA) -> AirProvingContext<CpuBackend<SC>> {
        let jobs = std::mem::take(&mut *self.jobs.lock().unwrap());
        AirProvingContext::simple_no_pis(self.trace::<Val<SC>>(&jobs))
    }
}

impl Blake2bRoundChip {
    /// The trace for `jobs`, padded with zero rows to a power of two.
    pub fn trace<F: PrimeField32>(&self, jobs: &[RoundJob]) -> RowMajorMatrix<F> {
        let rows: usize = jobs.iter().map(|job| job.rounds as usize).sum();
        if rows == 0 {
            return RowMajorMatrix::new(Vec::new(), NUM_ROUND_COLS);
        }
        let mut values = F::zero_vec(rows.next_power_of_two() * NUM_ROUND_COLS);
        let mut rest = &mut values[..rows * NUM_ROUND_COLS];
        for job in jobs {
            let (call, tail) = rest.split_at_mut(job.rounds as usize * NUM_ROUND_COLS);
            rest = tail;
            // Each round's input, then the rows in parallel.
            let mut states = Vec::with_capacity(job.rounds as usize);
            let mut v = job.v;
            for r in 0..job.rounds as usize {
                states.push(v);
                reference::round(&mut v, &job.m, r);
            }
            call.par_chunks_exact_mut(NUM_ROUND_COLS)
                .zip(states.par_iter())
                .enumerate()
                .for_each(|(r, (row, v))| self.fill_row(row.borrow_mut(), job, r, v));
        }
        RowMajorMatrix::new(values, NUM_ROUND_COLS)
    }

    fn fill_row<F: PrimeField32>(
        &self,
        cols: &mut RoundCols<F>,
        job: &RoundJob,
        r: usize,
        v: &[u64; 16],
    ) {
        cols.is_valid = F::ONE;
        cols.is_first = F::from_bool(r == 0);
        cols.is_last = F::from_bool(r + 1 == job.rounds as usize);
        cols.timestamp = F::from_u32(job.timestamp);
        cols.remaining = F::from_u32(job.rounds - r as u32);
        cols.sigma[r % 10] = F::ONE;
        for (dst, w) in cols.v.iter_mut().zip(v) {
            *dst = bytes(*w);
        }
        for (dst, w) in cols.m.iter_mut().zip(&job.m) {
            *dst = bytes(*w);
        }
        let s = &SIGMA[r % 10];
        let mut v = *v;
        for (i, words) in MIXINGS.iter().enumerate() {
            let [a, b, c, d] = words.map(|w| v[w]);
            let (x, y) = (job.m[s[2 * i]], job.m[s[2 * i + 1]]);
            let out = self.fill_mix(&mut cols.mix[i], [a, b, c, d], x, y);
            for (&w, value) in words.iter().zip(out) {
                v[w] = value;
            }
        }
    }

    fn fill_mix<F: PrimeField32>(
        &self,
        mix: &mut MixCols<F>,
        [a, b, c, d]: [u64; 4],
        x: u64,
        y: u64,
    ) -> [u64; 4] {
        let a1 = a.wrapping_add(b).wrapping_add(x);
        mix.a1 = bytes(a1);
        mix.a1_carry = carries(&[a, b, x], a1);
        let d1_xor = self.xor(d, a1);
        mix.d1_xor = bytes(d1_xor);
        let d1 = d1_xor.rotate_right(32);

        let c1 = c.wrapping_add(d1);
        mix.c1 = bytes(c1);
        mix.c1_carry = carries(&[c, d1], c1);
        let b1_xor = self.xor(b, c1);
        mix.b1_xor = bytes(b1_xor);
        let b1 = b1_xor.rotate_right(24);

        let a2 = a1.wrapping_add(b1).wrapping_add(y);
        mix.a2 = bytes(a2);
        mix.a2_carry = carries(&[a1, b1, y], a2);
        let d2_xor = self.xor(d1, a2);
        mix.d2_xor = bytes(d2_xor);
        let d2 = d2_xor.rotate_right(16);

        let c2 = c1.wrapping_add(d2);
        mix.c2 = bytes(c2);
        mix.c2_carry = carries(&[c1, d2], c2);
        let b2_xor = self.xor(b1, c2);
        mix.b2_xor = bytes(b2_xor);
        let z = b2_xor.to_le_bytes();
        mix.b2_hi = z.map(|byte| F::from_u8(byte >> 7));
        for pair in z.chunks_exact(2) {
            self.bitwise_lookup_chip
                .request_range((pair[0] << 1) as u32, (pair[1] << 1) as u32);
        }
        let b2 = b2_xor.rotate_right(63);
        [a2, b2, c2, d2]
    }

    /// `x ^ y`, requesting each byte's lookup.
    fn xor(&self, x: u64, y: u64) -> u64 {
        for (bx, by) in x.to_le_bytes().into_iter().zip(y.to_le_bytes()) {
            self.bitwise_lookup_chip.request_xor(bx as u32, by as u32);
        }
        x ^ y
    }
}

fn bytes<F: PrimeCharacteristicRing>(word: u64) -> [F; 8] {
    word.to_le_bytes().map(F::from_u8)
}

/// The carry out of each chunk of `Σ inputs = out mod 2^64`.
fn carries<F: PrimeCharacteristicRing>(inputs: &[u64], out: u64) -> [F; 3] {
    let chunk = |x: u64, (start, end): (usize, usize)| {
        (x >> (8 * start)) & ((1 << (8 * (end - start))) - 1)
    };
    let mut carry = 0u64;
    CHUNKS.map(|range| {
        let sum = carry + inputs.iter().map(|&x| chunk(x, range)).sum::<u64>();
        carry = (sum - chunk(out, range)) >> (8 * (range.1 - range.0));
        F::from_u64(carry)
    })
}
